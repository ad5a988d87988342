// The main (editor) area: every group that holds only main-area panels — editors, diffs, tool
// panels, previews — or nothing at all. Side bars (files, source control, run and debug) and
// bottom panels never count, so work never lands in a narrow side group, whatever layout was saved.
import type { AddPanelPositionOptions, DockviewGroupPanel } from 'dockview';
import { FILES_PANEL } from './editorPanels';
import { dock, registeredPanel } from './panels';

const SIDE_WIDTH = 260;

export const isMainGroup = (group: DockviewGroupPanel): boolean =>
  group.panels.every((p) => registeredPanel(p.api.component)?.options.area === 'main');

const area = (group: DockviewGroupPanel): number => group.width * group.height;

/** A new main area right of everything, taking all but a side bar's width. */
function createMainGroup(): DockviewGroupPanel {
  const api = dock();
  const group = api.addGroup({ direction: 'right' });
  group.api.setSize({ width: Math.max(api.width - SIDE_WIDTH, api.width / 2) });
  return group;
}

/** The group new work opens in: the active main group, else the largest; made when missing. */
export function mainGroup(): DockviewGroupPanel {
  const api = dock();
  const groups = api.groups.filter(isMainGroup);
  const active = api.activeGroup;
  if (active && groups.includes(active)) return active;
  if (groups.length) return groups.reduce((best, g) => (area(g) > area(best) ? g : best));
  return createMainGroup();
}

/** The editor area: the widest group (side panels are narrow). */
export function widestGroup(): DockviewGroupPanel | undefined {
  const groups = dock().groups;
  return groups.length ? groups.reduce((widest, g) => (g.width > widest.width ? g : widest)) : undefined;
}

/** Where a side bar's panel opens: a tab beside the file tree, else left of the editor area. */
export function sideBar(): AddPanelPositionOptions | undefined {
  if (dock().getPanel(FILES_PANEL)) return { referencePanel: FILES_PANEL };
  const area = widestGroup();
  return area ? { referenceGroup: area, direction: 'left' } : undefined;
}
