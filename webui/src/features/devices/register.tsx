// The Devices feature: its panel, its title-bar button and the live online state of devices.
import { registerPanel, registerTitleAction } from '../workbench/panels';
import { DevicesPanel } from './DevicesPanel';
import { DEVICES_PANEL, openDevices } from './open';
import { wireDeviceStatus } from './store';
import './devices.css';

export function registerDevicesFeature(): void {
  registerPanel(DEVICES_PANEL, () => <DevicesPanel />);
  registerTitleAction({ id: 'devices', label: 'Devices', glyph: '▣', run: openDevices });
  wireDeviceStatus();
}
