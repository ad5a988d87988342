// Where the Devices panel opens: as a tab beside the file tree, like an IDE's side bar.
import { sideBar } from '../../kernel/areas';
import { dock, showPanel } from '../../kernel/panels';

export const DEVICES_PANEL = 'devices';

export function openDevices(): void {
  const exists = Boolean(dock().getPanel(DEVICES_PANEL));
  showPanel({ id: DEVICES_PANEL, component: DEVICES_PANEL, title: 'Devices', position: exists ? undefined : sideBar() });
}
