import { mainGroup } from '../workbench/areas';
import { dock, showPanel } from '../workbench/panels';
import { editorPanelId } from './EditorPanel';

export const EDITOR_PANEL = 'editor';
export const FILES_PANEL = 'files';

/** Opens (or focuses) the editor tab of a file; new ones always go to the main area. */
export function openEditor(path: string): void {
  const id = editorPanelId(path);
  showPanel({
    id,
    component: EDITOR_PANEL,
    title: path.slice(path.lastIndexOf('/') + 1),
    params: { path },
    position: dock().getPanel(id) ? undefined : { referenceGroup: mainGroup() },
  });
}
