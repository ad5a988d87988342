// What the Training panel's buttons do: submit, stop, pull a job's artifacts into the project and
// show them in the file tree.
import { ApiError, errorMessage } from '../../api/client';
import { pullArtifacts, stopJob, submitJob, type Job, type JobCreate, type NotPushed } from '../../api/jobs';
import { notify } from '../../ui/toast';
import { selected, setExpanded } from '../../kernel/treeStore';
import { pid } from '../../kernel/session';
import { selectedId, setPull, upsertJob } from './store';

/** The message, with the request id a cloud error carries, so a support ticket can quote it. */
export function describeError(err: unknown): string {
  const message = errorMessage(err);
  const requestId = err instanceof ApiError ? err.body.request_id : undefined;
  if (typeof requestId !== 'string' || message.includes(requestId)) return message;
  return `${message} (request id ${requestId})`;
}

export type StartOutcome = { ok: true } | { ok: false; error: string; code?: string; notPushed?: NotPushed; notCommitted?: string[] };

/** Submits a job and selects it; a 409 `not_pushed` or `not_committed` comes back for the dialog to resolve. */
export async function startJob(body: JobCreate): Promise<StartOutcome> {
  try {
    const job = await submitJob(pid(), body);
    upsertJob(job);
    selectedId.value = job.id;
    return { ok: true };
  } catch (err) {
    const notPushed = err instanceof ApiError && err.code === 'not_pushed' ? (err.body as unknown as NotPushed) : undefined;
    const notCommitted = err instanceof ApiError && err.code === 'not_committed' ? (err.body.uncommitted as string[]) : undefined;
    return { ok: false, error: describeError(err), code: err instanceof ApiError ? err.code : undefined, notPushed, notCommitted };
  }
}

export async function stop(job: Job): Promise<void> {
  try {
    upsertJob(await stopJob(job.id));
  } catch (err) {
    notify(describeError(err));
  }
}

export async function pull(job: Pick<Job, 'id'>): Promise<void> {
  setPull(job.id, { running: true });
  try {
    const result = await pullArtifacts(job.id);
    setPull(job.id, { running: false, result });
  } catch (err) {
    setPull(job.id, { running: false, error: describeError(err) });
  }
}

/** Opens a folder and its parents in the file tree and selects it. */
export function revealFolder(folder: string): void {
  const parts = folder.split('/');
  parts.forEach((_, i) => setExpanded(parts.slice(0, i + 1).join('/'), true));
  selected.value = folder;
}
