import type { AddPanelPositionOptions } from 'dockview';
import { dock, showPanel } from '../workbench/panels';
import { editorPanelId } from './EditorPanel';

export const EDITOR_PANEL = 'editor';
export const FILES_PANEL = 'files';

/** New editors join the other editors; the first one opens to the right of the file tree. */
function editorPosition(): AddPanelPositionOptions | undefined {
  const api = dock();
  const active = api.activePanel;
  if (active?.id.startsWith('editor:')) return { referencePanel: active };
  const other = api.panels.find((p) => p.id.startsWith('editor:'));
  if (other) return { referencePanel: other };
  const editorArea = api.groups.find((g) => !g.panels.some((p) => p.id === FILES_PANEL));
  if (editorArea) return { referenceGroup: editorArea };
  if (api.getPanel(FILES_PANEL)) return { referencePanel: FILES_PANEL, direction: 'right' };
  return undefined;
}

/** Opens (or focuses) the editor tab of a file. */
export function openEditor(path: string): void {
  const id = editorPanelId(path);
  showPanel({
    id,
    component: EDITOR_PANEL,
    title: path.slice(path.lastIndexOf('/') + 1),
    params: { path },
    position: dock().getPanel(id) ? undefined : editorPosition(),
  });
}
