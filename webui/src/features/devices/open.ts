// Where the Devices panel opens: as a tab beside the file tree, like an IDE's side bar.
import type { AddPanelPositionOptions } from 'dockview';
import { FILES_PANEL } from '../../kernel/editorPanels';
import { dock, showPanel } from '../../kernel/panels';

export const DEVICES_PANEL = 'devices';

/** The editor area: the widest group (side panels are narrow). */
export function widestGroup() {
  const groups = dock().groups;
  return groups.length ? groups.reduce((widest, g) => (g.width > widest.width ? g : widest)) : undefined;
}

export function sideBar(): AddPanelPositionOptions | undefined {
  if (dock().getPanel(FILES_PANEL)) return { referencePanel: FILES_PANEL };
  const area = widestGroup();
  return area ? { referenceGroup: area, direction: 'left' } : undefined;
}

export function openDevices(): void {
  const exists = Boolean(dock().getPanel(DEVICES_PANEL));
  showPanel({ id: DEVICES_PANEL, component: DEVICES_PANEL, title: 'Devices', position: exists ? undefined : sideBar() });
}
