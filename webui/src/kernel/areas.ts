// The main (editor) area: every group that holds only main-area panels — editors, diffs, tool
// panels, previews — or nothing at all. Side bars (files, source control, run and debug) and
// bottom panels never count, so work never lands in a narrow side group, whatever layout was saved.
import type { DockviewGroupPanel } from 'dockview';
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
