// Where the run and debug panels open: Run and Debug beside the file tree (as a tab of its group,
// like an IDE's side bar), the consoles and the Perf panel together below the editor area.
import type { AddPanelPositionOptions } from 'dockview';
import { sideBar, widestGroup } from '../../kernel/areas';
import { dock, showPanel } from '../../kernel/panels';

export const RUN_PANEL = 'run-debug';
export const CONSOLE_PANEL = 'device-console';
export const REPL_PANEL = 'debug-console';
export const PERF_PANEL = 'perf';

const BOTTOM_PANELS = [CONSOLE_PANEL, REPL_PANEL, PERF_PANEL];
const BOTTOM_SHARE = 0.32;

function bottom(): AddPanelPositionOptions | undefined {
  const api = dock();
  const sibling = BOTTOM_PANELS.find((id) => api.getPanel(id));
  if (sibling) return { referencePanel: sibling };
  const area = widestGroup();
  return area ? { referenceGroup: area, direction: 'below' } : undefined;
}

function show(id: string, title: string, where: () => AddPanelPositionOptions | undefined, height?: number): void {
  const exists = Boolean(dock().getPanel(id));
  showPanel({ id, component: id, title, position: exists ? undefined : where(), initialHeight: exists ? undefined : height });
}

const bottomHeight = () => Math.round(dock().height * BOTTOM_SHARE);

/** A run's console joins the bottom panels without hiding the one the user is looking at. */
export function revealConsoleQuietly(): void {
  const api = dock();
  if (api.getPanel(CONSOLE_PANEL)) return;
  const busy = BOTTOM_PANELS.some((id) => api.getPanel(id));
  if (!busy) {
    openConsole();
    return;
  }
  showPanel({ id: CONSOLE_PANEL, component: CONSOLE_PANEL, title: 'Device Console', position: bottom(), inactive: true });
}

export const openRunPanel = () => show(RUN_PANEL, 'Run and Debug', sideBar);
export const openConsole = () => show(CONSOLE_PANEL, 'Device Console', bottom, bottomHeight());
export const openRepl = () => show(REPL_PANEL, 'Debug Console', bottom, bottomHeight());
export const openPerf = () => show(PERF_PANEL, 'Perf', bottom, bottomHeight());
