// The devices the user may use, kept fresh while a view shows them: polled every few seconds
// (online state, last seen, facts) and patched at once by `devices`/`device.status` and
// `device.facts` events.
import { signal } from '@preact/signals';
import { errorMessage } from '../api/client';
import { listDevices, type Device } from '../api/devices';
import { session } from './session';

const POLL_MS = 3000;

export const devices = signal<Device[]>([]);
export const devicesError = signal<string | null>(null);
export const devicesLoaded = signal(false);

let watchers = 0;
let timer: number | undefined;

export async function refreshDevices(): Promise<void> {
  try {
    devices.value = await listDevices();
    devicesError.value = null;
  } catch (err) {
    devicesError.value = errorMessage(err);
  } finally {
    devicesLoaded.value = true;
  }
}

/** Polls while at least one view is watching; returns the unwatch function. */
export function watchDevices(): () => void {
  watchers += 1;
  if (watchers === 1) {
    void refreshDevices();
    timer = window.setInterval(() => void refreshDevices(), POLL_MS);
  }
  return () => {
    watchers -= 1;
    if (watchers === 0) window.clearInterval(timer);
  };
}

export const deviceById = (id: string | null): Device | undefined => devices.value.find((d) => d.id === id);

export function wireDeviceStatus(): void {
  session().socket.on('devices', (msg) => {
    if (msg.type === 'device.facts') {
      const { device_id, info } = msg.data;
      devices.value = devices.value.map((d) => (d.id === device_id ? { ...d, info } : d));
      return;
    }
    if (msg.type !== 'device.status') return;
    const { device_id, online } = msg.data;
    devices.value = devices.value.map((d) => (d.id === device_id ? { ...d, online } : d));
  });
}
