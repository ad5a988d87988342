// Short human forms of a device's facts for lists and pickers.
import type { Device } from '../../api/devices';

export function formatBytes(bytes: number | undefined): string {
  if (!bytes) return '';
  const gib = bytes / 1024 ** 3;
  return gib >= 1 ? `${gib.toFixed(1)} GB` : `${Math.round(bytes / 1024 ** 2)} MB`;
}

export function ago(iso: string | null, now = Date.now()): string {
  if (!iso) return 'never';
  // The server sends naive UTC times.
  const then = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(iso) ? iso : `${iso}Z`);
  const seconds = Math.max(0, Math.round((now - then) / 1000));
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ago`;
  return new Date(then).toLocaleDateString();
}

/** "Linux 6.1 · aarch64 · Python 3.11.9 · MNN 3.6.1 · 8 CPUs · 7.3 GB" */
export function deviceFacts(device: Device): string[] {
  const { os, arch, python, mnn, cpus, mem } = device.info;
  return [
    os ?? '',
    arch ?? '',
    python ? `Python ${python}` : '',
    mnn ? `MNN ${mnn}` : 'no MNN',
    cpus ? `${cpus} CPU${cpus === 1 ? '' : 's'}` : '',
    formatBytes(mem),
  ].filter(Boolean);
}
