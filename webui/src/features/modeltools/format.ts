// Numbers as the tool results show them.

export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return '—';
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 2 : 1)} ${units[unit]}`;
}

export function formatNumber(value: number | null | undefined, digits = 2): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '—';
  if (Math.abs(value) >= 1e6) return `${(value / 1e6).toFixed(digits)} M`;
  if (Math.abs(value) >= 1e4) return `${(value / 1e3).toFixed(digits)} K`;
  return Number.isInteger(value) ? value.toLocaleString() : value.toFixed(digits);
}

/** Errors and cosines: small numbers in scientific notation, the rest with 4 significant digits. */
export function formatError(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '—';
  if (value !== 0 && Math.abs(value) < 1e-3) return value.toExponential(2);
  return value.toPrecision(4);
}

/** A duration in ms; with ``resolution`` (ms), as many decimals as tell neighbours apart. */
export function formatMs(ms: number | null | undefined, resolution?: number): string {
  if (ms === null || ms === undefined) return '—';
  const decimals = (unit: number, standard: number) =>
    resolution ? Math.max(0, Math.min(3, Math.ceil(-Math.log10(resolution / unit)))) : standard;
  if (ms < 1) return `${(ms * 1000).toFixed(decimals(0.001, 0))} µs`;
  return `${ms.toFixed(decimals(1, ms < 10 ? 2 : 1))} ms`;
}

export const formatShape = (shape: (number | string)[] | null | undefined): string =>
  shape ? `[${shape.join(', ')}]` : '—';

export function formatDuration(from: string, to: string | null): string {
  if (!to) return '';
  const seconds = (Date.parse(to) - Date.parse(from)) / 1000;
  return seconds < 60 ? `${seconds.toFixed(1)} s` : `${Math.floor(seconds / 60)} m ${Math.round(seconds % 60)} s`;
}

export function formatWhen(iso: string): string {
  const date = new Date(iso);
  const today = new Date().toDateString() === date.toDateString();
  return today ? date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' }) : date.toLocaleString();
}
