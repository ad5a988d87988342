// How times and durations read in the Training panel.
import type { Job } from '../../api/jobs';

/** Server times are UTC; a row read back from SQLite can lose its zone suffix. */
export function parseTime(iso: string): number {
  return Date.parse(/(Z|[+-]\d\d:\d\d)$/.test(iso) ? iso : `${iso}Z`);
}

export function formatDuration(ms: number): string {
  const seconds = Math.max(0, ms) / 1000;
  if (seconds < 10) return `${seconds.toFixed(1)}s`;
  const whole = Math.floor(seconds);
  if (whole < 60) return `${whole}s`;
  const pad = (n: number) => String(n).padStart(2, '0');
  if (whole < 3600) return `${Math.floor(whole / 60)}m ${pad(whole % 60)}s`;
  return `${Math.floor(whole / 3600)}h ${pad(Math.floor((whole % 3600) / 60))}m`;
}

/** How long the job ran (or has been running), or null before it started. */
export function jobDuration(job: Job, now: number): string | null {
  if (!job.started_at) return null;
  const end = job.finished_at ? parseTime(job.finished_at) : now;
  return formatDuration(end - parseTime(job.started_at));
}

export function formatAgo(iso: string, now: number): string {
  const seconds = Math.round((now - parseTime(iso)) / 1000);
  if (seconds < 45) return 'just now';
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)} h ago`;
  return new Date(parseTime(iso)).toLocaleDateString();
}

export const shortId = (id: string): string => id.slice(0, 8);
export const shortCommit = (sha: string | null): string | null => (sha ? sha.slice(0, 7) : null);

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
}

const BACKEND_LABELS: Record<string, string> = { local: 'local', 'pai-dlc': 'PAI-DLC', ray: 'Ray' };

export const backendLabel = (backend: string): string => BACKEND_LABELS[backend] ?? backend;
