// The panels every project has. Other features register theirs the same way (see features.ts).
import { EditorPanel } from '../features/editor/EditorPanel';
import { EditorTab } from '../features/editor/EditorTab';
import { EDITOR_PANEL, FILES_PANEL } from '../kernel/editorPanels';
import { registerPreviewEditors } from '../features/editor/preview';
import { newFile, newFolder, uploadInto } from '../features/files/fileActions';
import { FileTree } from '../features/files/FileTree';
import { reloadTree } from '../kernel/treeStore';
import { registerCommand } from '../kernel/commands';
import { isViewer } from '../kernel/account';
import { registerEditorInfo } from '../features/status/editorInfo';
import { dock, registerPanel, registerTab, registerTitleAction, showPanel } from '../kernel/panels';

/** Brings the file tree back (on the far left) after it was closed. */
function showFiles(): void {
  const first = dock().groups[0];
  showPanel({
    id: FILES_PANEL,
    component: FILES_PANEL,
    title: 'Files',
    position: dock().getPanel(FILES_PANEL) || !first ? undefined : { referenceGroup: first, direction: 'left' },
  });
}

export function registerBuiltinPanels(): void {
  registerPanel(FILES_PANEL, () => <FileTree />);
  registerTab(EDITOR_PANEL, (props) => <EditorTab {...props} />);
  registerPanel(EDITOR_PANEL, (props) => <EditorPanel {...props} />, { tab: EDITOR_PANEL, area: 'main' });
  registerTitleAction({ id: 'files', label: 'Files', shortcut: 'Ctrl+Shift+E', glyph: '☰', icon: 'files', run: showFiles });
  // The file tree's toolbar, at the project's root.
  const editor = () => !isViewer.value;
  registerCommand({ id: 'files.new-file', label: 'New file…', category: 'File', enabled: editor, run: () => void newFile('') });
  registerCommand({ id: 'files.new-folder', label: 'New folder…', category: 'File', enabled: editor, run: () => void newFolder('') });
  registerCommand({ id: 'files.upload', label: 'Upload files…', category: 'File', enabled: editor, run: () => uploadInto('') });
  registerCommand({ id: 'files.refresh', label: 'Refresh the file tree', category: 'File', run: () => void reloadTree() });
  registerEditorInfo();
  void registerPreviewEditors();
}
