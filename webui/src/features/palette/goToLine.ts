// Go to line[:column] in the current editor (the last one used, also when the focus is elsewhere).
import { currentEditor } from '../../kernel/editor';
import { notify } from '../../ui/toast';

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
