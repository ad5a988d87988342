// Open a file and put the cursor on a match (the editor appears a moment after its tab).
import { loadMonaco } from '../../monaco/load';
import { openDoc } from '../editor/documents';
import { openEditor, type OpenOptions } from '../editor/openEditor';

const WAIT_FRAMES = 120;

export async function revealMatch(path: string, line: number, column: number, length: number, options: OpenOptions = {}): Promise<void> {
  openEditor(path, options);
  const doc = await openDoc(path);
  const { monaco } = await loadMonaco();
  for (let frame = 0; frame < WAIT_FRAMES; frame += 1) {
    const editor = monaco.editor.getEditors().find((e) => doc.model && e.getModel() === doc.model);
    if (editor) {
      editor.setSelection(new monaco.Selection(line, column, line, column + length));
      editor.revealLineInCenter(line);
      editor.focus();
      return;
    }
    await new Promise((resolve) => requestAnimationFrame(resolve));
  }
}
