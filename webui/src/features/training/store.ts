// The tab's view of the project's jobs: the list (newest first), the selected job, a clock for
// live durations, and artifact pulls in progress — kept fresh from the `jobs` channel.
import { computed, signal } from '@preact/signals';
import { errorMessage } from '../../api/client';
import { getMarked, listJobs, type ArtifactsProgress, type ArtifactsPulled, type Job } from '../../api/jobs';
import type { ChannelEvent } from '../../api/types';
import { later } from '../../kernel/later';
import { pid, session } from '../../kernel/session';

export const jobs = signal<Job[]>([]);
export const jobsError = signal<string | null>(null);
export const loaded = signal(false);
export const selectedId = signal<string | null>(null);
export const selectedJob = computed(() => jobs.value.find((j) => j.id === selectedId.value) ?? null);
/** The job marked "Use this model": the one the flow continues from (docs/training.md). */
export const markedId = signal<string | null>(null);
/** Jobs ticked for comparison, in the order they were ticked; `comparing` shows them side by side. */
export const compareIds = signal<string[]>([]);
export const comparing = signal(false);
/** Milliseconds since the epoch, ticking once a second while a job is active. */
export const now = signal(Date.now());

export interface PullState {
  running: boolean;
  progress?: ArtifactsProgress;
  result?: ArtifactsPulled;
  error?: string;
}

/** Artifact pulls by job id: running, done or failed (this tab's and other tabs'). */
export const pulls = signal<Record<string, PullState>>({});

const TICK_MS = 1000;
let ticker: number | undefined;

export const isActive = (job: Job): boolean => job.status === 'queued' || job.status === 'running';

function keepTicking(): void {
  const active = jobs.value.some(isActive);
  if (active && ticker === undefined) {
    ticker = window.setInterval(() => (now.value = Date.now()), TICK_MS);
  } else if (!active && ticker !== undefined) {
    window.clearInterval(ticker);
    ticker = undefined;
    now.value = Date.now();
  }
}

/** Puts a job into the list (new ones first), replacing an older copy of it. */
export function upsertJob(job: Job): void {
  const shown = jobs.value.find((j) => j.id === job.id);
  const next = later(shown, job);
  if (next === shown) return;
  jobs.value = shown ? jobs.value.map((j) => (j.id === job.id ? next : j)) : [job, ...jobs.value];
  keepTicking();
}

export async function loadJobs(): Promise<void> {
  try {
    const [list, marked] = await Promise.all([listJobs(pid()), getMarked(pid())]);
    const shown = new Map(jobs.value.map((j) => [j.id, j]));
    jobs.value = list.map((job) => later(shown.get(job.id), job));
    markedId.value = marked.job_id;
    jobsError.value = null;
    if (!selectedId.value && jobs.value.length) selectedId.value = jobs.value[0].id;
  } catch (err) {
    jobsError.value = errorMessage(err);
  } finally {
    loaded.value = true;
    keepTicking();
  }
}

export function setPull(jobId: string, state: PullState): void {
  pulls.value = { ...pulls.value, [jobId]: state };
}

function onJobEvent(msg: ChannelEvent<'jobs'>): void {
  if (msg.type === 'job.status') upsertJob(msg.data.job);
  else if (msg.type === 'job.marked') markedId.value = msg.data.job_id;
  else if (msg.type === 'artifacts.progress') {
    const progress = msg.data;
    setPull(progress.job_id, { ...pulls.value[progress.job_id], running: true, progress });
  } else if (msg.type === 'artifacts.pulled') {
    const result = msg.data;
    setPull(result.job_id, { running: false, result });
  }
}

/** Listens to job events for the whole life of the tab (the list stays right while hidden). */
export function wireJobEvents(): void {
  const { socket } = session();
  socket.on('jobs', onJobEvent);
  socket.on('sys', (msg) => {
    if (msg.type === 'resync' && loaded.value) void loadJobs();
  });
}
