// What the status bar tells about the focused editor: cursor line and column (and the selection),
// language, encoding, end of line and indentation — kept by an editor extension.
import { signal } from '@preact/signals';
import type { monaco } from '../../monaco/setup';
import type { Doc } from '../../kernel/editor';
import { registerEditorExtension } from '../../kernel/editorExtensions';

export interface EditorInfo {
  path: string;
  line: number;
  column: number;
  selected: number;
  language: string;
  encoding: string;
  eol: 'LF' | 'CRLF';
  indent: string;
}

export const editorInfo = signal<EditorInfo | null>(null);

function read(editor: monaco.editor.IStandaloneCodeEditor, doc: Doc): EditorInfo | null {
  const model = editor.getModel();
  const position = editor.getPosition();
  if (!model || !position) return null;
  const options = model.getOptions();
  const selection = editor.getSelection();
  return {
    path: doc.path,
    line: position.lineNumber,
    column: position.column,
    selected: selection ? model.getValueInRange(selection).length : 0,
    language: model.getLanguageId(),
    encoding: (doc.encoding ?? 'utf-8').toUpperCase(),
    eol: model.getEOL() === '\r\n' ? 'CRLF' : 'LF',
    indent: options.insertSpaces ? `Spaces: ${options.indentSize}` : `Tab Size: ${options.tabSize}`,
  };
}

function track(editor: monaco.editor.IStandaloneCodeEditor, doc: Doc): monaco.IDisposable {
  const update = () => {
    if (editor.hasTextFocus() || editorInfo.value?.path === doc.path) editorInfo.value = read(editor, doc);
  };
  const subs = [editor.onDidChangeCursorSelection(update), editor.onDidFocusEditorText(update), editor.onDidChangeModelOptions(update)];
  if (editor.hasTextFocus() || !editorInfo.value) editorInfo.value = read(editor, doc);
  return { dispose: () => subs.forEach((s) => s.dispose()) };
}

export function registerEditorInfo(): void {
  registerEditorExtension(track);
}
