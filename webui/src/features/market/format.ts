// How the market shows figures: sizes in KB/MB, accuracy in percent, latency in ms.
export function formatSize(bytes: number | null | undefined): string {
  if (bytes == null) return '—';
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export const formatAccuracy = (value: number | null | undefined): string =>
  value == null ? '—' : `${(value * 100).toFixed(1)} %`;

export const formatLatency = (ms: number | null | undefined): string =>
  ms == null ? '—' : `${ms < 1 ? ms.toFixed(3) : ms.toFixed(1)} ms`;

export const SOURCE_LABELS: Record<string, string> = { builtin: 'Built in', registry: 'Team registry', 'mnn-hub': 'MNN hub' };

export const sourceLabel = (source: string): string => SOURCE_LABELS[source] ?? source;
