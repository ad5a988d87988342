// The dock names of the file tree and of the editors, and the dock id of a file's editor panel:
// a leaf module, so the editor's own modules, the previews and the side bars can name them
// without importing the editor.
export const EDITOR_PANEL = 'editor';
export const FILES_PANEL = 'files';

export const editorPanelId = (path: string) => `editor:${path}`;
