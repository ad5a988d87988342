// The project page's own chunk: dockview and the workbench features. Monaco is not in it: it
// loads beside it (monaco/load.ts) and the editors appear when it has.
import { render } from 'preact';
import 'dockview/dist/styles/dockview.css';
import type { PageConfig } from '../../api/types';
import { installKeybindings } from '../keybindings/dispatcher';
import { FEATURES } from './features';
import { holdShortcutsUntilDockReady } from './panels';
import { ProjectPage } from './ProjectPage';
import { startSession } from './session';

export function mountProject(root: HTMLElement, config: PageConfig): void {
  startSession(config.project!, config.ws_path!, config.git ?? true);
  holdShortcutsUntilDockReady();
  installKeybindings(config.keybindings);
  for (const register of FEATURES) register();
  render(<ProjectPage version={config.version} />, root);
}
