// The Devices feature: its panel, its title-bar button, its palette commands and the live online
// state of devices.
import { registerCommand } from '../../kernel/commands';
import { registerPanel, registerTitleAction } from '../../kernel/panels';
import { DevicesPanel } from './DevicesPanel';
import { DEVICES_PANEL, openDevices } from './open';
import { pairOpen } from './PairDialog';
import { refreshDevices, wireDeviceStatus } from '../../kernel/devices';
import './devices.css';
import { registerOpener } from '../../kernel/openers';

export function registerDevicesFeature(): void {
  registerOpener('devices', openDevices);
  registerPanel(DEVICES_PANEL, () => <DevicesPanel />);
  registerTitleAction({ id: 'devices', label: 'Devices', glyph: '▣', icon: 'device-mobile', run: openDevices });
  registerCommand({ id: 'devices.pair', label: 'Pair a device…', category: 'Devices', run: () => {
    openDevices();
    pairOpen.value = true;
  } });
  registerCommand({ id: 'devices.refresh', label: 'Refresh devices', category: 'Devices', run: () => void refreshDevices() });
  wireDeviceStatus();
}
