// The Devices panel: every device the user may use, online or not, with its facts; pair,
// rename and revoke; in team mode the owner shares a device with other users.
import { useEffect } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { refreshFacts, renameDevice, revokeDevice, type Device } from '../../api/devices';
import { confirmDialog, promptDialog } from '../../ui/dialogs';
import { notify } from '../../ui/toast';
import { DoctorReport } from './DoctorReport';
import { ago, deviceFacts } from './format';
import { account } from '../../kernel/account';
import { PairDialog, pairOpen } from './PairDialog';
import { ShareDialog } from './ShareDialog';
import { shareTarget } from './sharing';
import { devices, devicesError, devicesLoaded, refreshDevices, watchDevices } from '../../kernel/devices';

async function rename(device: Device): Promise<void> {
  const name = await promptDialog(`Rename ${device.name}`, 'Name', device.name, 'Rename');
  if (!name || name === device.name) return;
  await renameDevice(device.id, name);
  await refreshDevices();
}

async function revoke(device: Device): Promise<void> {
  const answer = await confirmDialog(
    `Remove ${device.name}?`,
    'Its token stops working at once and a connected agent is disconnected. Pair it again to use it.',
    { confirm: 'Remove', danger: true },
  );
  if (!answer.ok) return;
  await revokeDevice(device.id);
  await refreshDevices();
}

/** Asks the agent to probe its device again; the new facts arrive by event and by the poll. */
async function askFacts(device: Device): Promise<void> {
  await refreshFacts(device.id);
  notify(`Asked ${device.name} for fresh facts`, 'info');
}

const failing = (action: (d: Device) => Promise<void>) => (device: Device) => {
  action(device).catch((err) => notify(errorMessage(err)));
};

function DeviceRow({ device }: { device: Device }) {
  const facts = deviceFacts(device);
  return (
    <div class="device-row" data-testid="device-row" data-id={device.id} data-online={String(device.online)}>
      <span class={device.online ? 'device-dot online' : 'device-dot'} title={device.online ? 'Online' : 'Offline'} />
      <div class="device-main">
        <div class="device-name-line">
          <span class="device-name" data-testid="device-name">{device.name}</span>
          {!device.mine && <span class="device-owner muted" data-testid="device-owner" title={`Paired by ${device.owner}`}>owned by {device.owner}</span>}
          <span class="muted device-seen">{device.online ? 'online' : `last seen ${ago(device.last_seen)}`}</span>
        </div>
        <div class="device-facts muted" data-testid="device-facts" title={facts.join(' · ')}>{facts.join(' · ') || 'never connected'}</div>
        <DoctorReport device={device} />
      </div>
      <div class="device-actions">
        {device.online && (
          <button class="icon-btn" title="Refresh facts: probe MNN, its backends and packages again" aria-label="Refresh facts"
            data-testid="device-refresh-facts" onClick={() => failing(askFacts)(device)}>↻</button>
        )}
        {account.value && device.manage && (
          <button class="icon-btn" title="Share…" aria-label="Share" data-testid="device-share" onClick={() => (shareTarget.value = device)}>⇄</button>
        )}
        {device.manage && (
          <>
            <button class="icon-btn" title="Rename" aria-label="Rename" data-testid="device-rename" onClick={() => failing(rename)(device)}>✎</button>
            <button class="icon-btn" title="Remove (revoke)" aria-label="Remove" data-testid="device-revoke" onClick={() => failing(revoke)(device)}>🗑</button>
          </>
        )}
      </div>
    </div>
  );
}

export function DevicesPanel() {
  useEffect(() => watchDevices(), []);
  const list = devices.value;
  return (
    <div class="devices-panel" data-testid="devices-panel">
      <div class="panel-toolbar">
        <span class="panel-toolbar-title">Devices</span>
        <button class="icon-btn" title="Pair a device" aria-label="Pair a device" data-testid="pair-device" onClick={() => (pairOpen.value = true)}>+</button>
        <button class="icon-btn" title="Refresh" aria-label="Refresh" onClick={() => void refreshDevices()}>⟳</button>
      </div>
      {devicesError.value && <div class="form-error device-error">{devicesError.value}</div>}
      <div class="device-list">
        {list.map((d) => <DeviceRow key={d.id} device={d} />)}
        {devicesLoaded.value && !list.length && (
          <div class="panel-message">
            No devices yet.
            <button class="btn btn-small device-pair-cta" onClick={() => (pairOpen.value = true)}>Pair a device</button>
          </div>
        )}
      </div>
      {pairOpen.value && <PairDialog />}
      {shareTarget.value && <ShareDialog device={shareTarget.value} />}
    </div>
  );
}
