// Said by a view whose work runs on a device while none is paired: what is missing and the way
// to pair one (the Devices panel with its pairing dialog open).
import { EmptyState } from '../../ui/EmptyState';
import { openDevices } from './open';
import { pairOpen } from './PairDialog';
import { devices, devicesError, devicesLoaded } from '../../kernel/devices';

export function pairADevice(): void {
  openDevices();
  pairOpen.value = true;
}

/** Nothing until the device list is known; nothing once a device is paired. */
export function NoDevice({ testid, needs }: { testid: string; needs: string }) {
  if (!devicesLoaded.value || devicesError.value || devices.value.length > 0) return null;
  return (
    <EmptyState testid={testid} title="No device is paired"
      action={{ label: 'Pair a device…', testid: `${testid}-pair`, run: pairADevice }}>
      {needs} Pair a phone, a board or a computer: its agent dials out to this workbench.
    </EmptyState>
  );
}
