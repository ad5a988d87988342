// The dock id of a file's editor panel: a leaf module, so the editor's own modules and the
// previews can name an editor without importing the editor panel.
export const editorPanelId = (path: string) => `editor:${path}`;
