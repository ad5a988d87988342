// The editor provides the kernel's editor service (kernel/editor.ts): the other features open
// files, read their documents and save them through it, without importing this folder.
import { provideEditorService } from '../../kernel/editor';
import { currentEditor } from './currentEditor';
import { closeDoc, getDoc, openDoc, openDocs, registerBeforeSave, saveDoc } from './documents';
import { saveWithNotice } from './EditorPanel';
import { editorOf, openEditor, openToEdit } from './openEditor';

export function registerEditorService(): void {
  provideEditorService({
    openEditor, openToEdit, editorOf, currentEditor,
    openDoc, getDoc, openDocs, closeDoc, saveDoc, saveWithNotice, registerBeforeSave,
  });
}
