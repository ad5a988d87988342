// Go to line[:column] in the current editor (the last one used, also when the focus is elsewhere).
import { monacoApi, monacoReady } from '../../monaco/load';
import type { monaco } from '../../monaco/setup';
import { getDoc } from '../editor/documents';
import { activePath } from '../../kernel/active';
import { notify } from '../../ui/toast';

export function currentEditor(): monaco.editor.ICodeEditor | undefined {
  if (!monacoReady.value) return undefined; // no editor yet
  const editors = monacoApi().editor.getEditors();
  const focused = editors.find((e) => e.hasTextFocus());
  if (focused) return focused;
  const doc = activePath.value ? getDoc(activePath.value) : undefined;
  return editors.find((e) => doc?.model && e.getModel() === doc.model);
}

export function goToLine(text: string): void {
  const editor = currentEditor();
  const model = editor?.getModel();
  if (!editor || !model) {
    notify('Open a file first to go to a line in it.');
    return;
  }
  const [lineText, columnText] = text.trim().split(/[:,]/);
  const line = Math.min(Math.max(Number.parseInt(lineText, 10) || 1, 1), model.getLineCount());
  const column = Math.max(Number.parseInt(columnText ?? '', 10) || 1, 1);
  editor.setPosition({ lineNumber: line, column });
  editor.revealLineInCenter(line);
  editor.focus();
}
