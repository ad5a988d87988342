// The project's sweeps, read again whenever one of their jobs changes status, and which view
// (jobs or sweeps) the Training panel shows.
import { signal } from '@preact/signals';
import { errorMessage } from '../../api/client';
import { listSweeps, type Sweep } from '../../api/ray';
import { pid } from '../../kernel/session';

export const view = signal<'jobs' | 'sweeps'>('jobs');
export const sweeps = signal<Sweep[]>([]);
export const sweepsError = signal<string | null>(null);

export async function loadSweeps(): Promise<void> {
  try {
    sweeps.value = await listSweeps(pid());
    sweepsError.value = null;
  } catch (err) {
    sweepsError.value = errorMessage(err);
  }
}

/** The sweep a job belongs to, if any. */
export const sweepOf = (jobId: string): Sweep | undefined => sweeps.value.find((s) => s.runs.some((r) => r.job_id === jobId));
