// An extension point for features that add to every editor (the debugger's breakpoint gutter and
// current line): each extension is called when an editor is created and disposed with it.
import type { monaco } from '../monaco/setup';
import type { Doc } from './doc';

export type EditorExtension = (editor: monaco.editor.IStandaloneCodeEditor, doc: Doc) => monaco.IDisposable;

const extensions: EditorExtension[] = [];

export function registerEditorExtension(extension: EditorExtension): void {
  extensions.push(extension);
}

export function applyEditorExtensions(editor: monaco.editor.IStandaloneCodeEditor, doc: Doc): monaco.IDisposable[] {
  return extensions.map((extension) => extension(editor, doc));
}
