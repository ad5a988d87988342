// Open a file and put the cursor on a match (the editor appears a moment after its tab).
import { loadMonaco } from '../../monaco/load';
import { editorOf, openEditor, type OpenOptions } from '../../kernel/editor';

export async function revealMatch(path: string, line: number, column: number, length: number, options: OpenOptions = {}): Promise<void> {
  openEditor(path, options);
  const editor = await editorOf(path);
  if (!editor) return;
  const { monaco } = await loadMonaco();
  editor.setSelection(new monaco.Selection(line, column, line, column + length));
  editor.revealLineInCenter(line);
  editor.focus();
}
