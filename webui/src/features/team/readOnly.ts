// Viewers may read but not change files: their editors are read-only, so nobody types and then
// fails on save.
import { effect } from '@preact/signals';
import type { EditorExtension } from '../../kernel/editorExtensions';
import { isViewer } from '../../kernel/account';

const VIEWER_MESSAGE = { value: 'You are a viewer of this project: an owner can make you an editor.' };

export const readOnlyForViewers: EditorExtension = (editor) => {
  const stop = effect(() => {
    editor.updateOptions({ readOnly: isViewer.value, readOnlyMessage: VIEWER_MESSAGE });
  });
  return { dispose: stop };
};
