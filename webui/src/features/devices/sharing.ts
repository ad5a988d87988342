// Which listed devices the caller owns, in team mode: only the owner may share a device, and the
// device list does not say who owns what, so each new device is asked once for its shares
// (which answers 404 to anyone but the owner).
import { signal } from '@preact/signals';
import { ApiError } from '../../api/client';
import { listShares, type Device } from '../../api/devices';
import { account } from '../team/account';

/** Device id → whether the caller owns it; absent while unknown. */
export const owned = signal<Record<string, boolean>>({});

/** The device whose share dialog is open. */
export const shareTarget = signal<Device | null>(null);

const asking = new Set<string>();

async function ask(did: string): Promise<void> {
  asking.add(did);
  try {
    await listShares(did);
    owned.value = { ...owned.value, [did]: true };
  } catch (err) {
    // Other failures leave the answer unknown, to be asked again on the next refresh.
    if (err instanceof ApiError && err.status === 404) owned.value = { ...owned.value, [did]: false };
  } finally {
    asking.delete(did);
  }
}

export function learnOwnership(list: Device[]): void {
  if (!account.value) return;
  for (const d of list) {
    if (!(d.id in owned.value) && !asking.has(d.id)) void ask(d.id);
  }
}
