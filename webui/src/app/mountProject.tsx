// The project page's own chunk: dockview and the workbench features. Monaco is not in it: it
// loads beside it (monaco/load.ts) and the editors appear when it has.
import { render } from 'preact';
import 'dockview/dist/styles/dockview.css';
import '../styles/codicons.css';
import type { PageConfig } from '../api/types';
import { installKeybindings } from '../features/keybindings/dispatcher';
import { FEATURES } from './features';
import { notify } from '../ui/toast';
import { editorPanelId } from '../kernel/editorPanels';
import { startHotExit } from '../features/editor/hotExit';
import { registerEditorService } from '../features/editor/service';
import { openEditor } from '../features/editor/openEditor';
import { dock, dockReady, holdShortcutsUntilDockReady } from '../kernel/panels';
import { ProjectPage } from './ProjectPage';
import { startSession } from '../kernel/session';

export function mountProject(root: HTMLElement, config: PageConfig): void {
  startSession(config.project!, config.ws_path!, config.git ?? true);
  registerEditorService();
  holdShortcutsUntilDockReady();
  installKeybindings(config.keybindings);
  const restoring = startHotExit(config.backups ?? []);
  for (const register of FEATURES) register();
  render(<ProjectPage version={config.version} />, root);
  if (restoring.length) reopenWhenDockReady(restoring);
}

/** The files with unsaved edits kept on the server, each in an editor (the layout may already
 * have one), and a word that they came back. */
function reopenWhenDockReady(paths: string[]): void {
  const stop = dockReady.subscribe((ready) => {
    if (!ready) return;
    queueMicrotask(() => stop());
    const active = dock().activePanel;
    for (const path of paths) if (!dock().getPanel(editorPanelId(path))) openEditor(path);
    active?.api.setActive();
    const files = paths.length === 1 ? paths[0] : `${paths.length} files`;
    notify(`Restored your unsaved changes of ${files}.`, 'info');
  });
}
