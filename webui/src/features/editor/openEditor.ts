import { mainGroup } from '../workbench/areas';
import { dock, showPanel } from '../workbench/panels';
import { editorPanelId } from './EditorPanel';
import { keepPanel, previewEnabled, replaceablePreview } from './preview';

export const EDITOR_PANEL = 'editor';
export const FILES_PANEL = 'files';

export interface OpenOptions {
  /** Opened for a look: in the group's preview tab, replacing the file previewed there (preview.ts). */
  preview?: boolean;
}

/** Opens (or focuses) the editor tab of a file; new ones always go to the main area. */
export function openEditor(path: string, options: OpenOptions = {}): void {
  const id = editorPanelId(path);
  const existing = dock().getPanel(id);
  if (existing && !options.preview) keepPanel(existing);
  const group = existing ? undefined : mainGroup();
  const replaced = group && options.preview && previewEnabled.value ? replaceablePreview(group) : undefined;
  showPanel({
    id,
    component: EDITOR_PANEL,
    title: path.slice(path.lastIndexOf('/') + 1),
    params: options.preview && previewEnabled.value ? { path, preview: true } : { path },
    position: replaced
      ? { referencePanel: replaced.id, index: replaced.group.panels.indexOf(replaced) }
      : group && { referenceGroup: group },
  });
  replaced?.api.close();
}
