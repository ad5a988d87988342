// The tab's view of the project's repository: status, stashes and the running operation, kept
// fresh from the tab's websocket (files and git events) with a debounce, so saving never waits
// for Git and a burst of events costs one request.
import { signal } from '@preact/signals';
import { ApiError, clientId, errorMessage } from '../api/client';
import { getStatus, listStashes, type GitStatus, type StashEntry } from '../api/git';
import { pid, session } from './session';

export type RepoState = 'loading' | 'ready' | 'none' | 'error';

export const status = signal<GitStatus | null>(null);
export const repoState = signal<RepoState>('loading');
export const repoError = signal<string | null>(null);
export const stashes = signal<StashEntry[]>([]);
/** What the panel is doing right now (e.g. "Pushing…"), null when idle. */
export const busy = signal<string | null>(null);
/** A commit message to offer when the box is empty (a merge's default message). */
export const draftMessage = signal<string | null>(null);
/** The last progress line a fetch, pull or push reported. */
export const progress = signal<string | null>(null);

const REFRESH_DELAY_MS = 250;
let timer: number | undefined;
let running: Promise<void> | null = null;
let again = false;
let started = false;

function failed(err: unknown): void {
  if (err instanceof ApiError && err.code === 'not_a_repository') {
    status.value = null;
    stashes.value = [];
    repoState.value = 'none';
    return;
  }
  repoState.value = 'error';
  repoError.value = errorMessage(err);
}

async function load(): Promise<void> {
  try {
    const [next, list] = await Promise.all([getStatus(pid()), listStashes(pid())]);
    status.value = next;
    stashes.value = list;
    repoState.value = 'ready';
    repoError.value = null;
  } catch (err) {
    failed(err);
  }
}

/** Reloads now; a call while a load runs queues exactly one more load after it. */
export function refresh(): Promise<void> {
  if (running) {
    again = true;
    return running;
  }
  running = load().finally(() => {
    running = null;
    if (again) {
      again = false;
      void refresh();
    }
  });
  return running;
}

export function scheduleRefresh(): void {
  window.clearTimeout(timer);
  timer = window.setTimeout(() => void refresh(), REFRESH_DELAY_MS);
}

/** File changes and a return to the tab cannot make a repository: without one they ask nothing. */
function refreshIfRepository(): void {
  if (repoState.value !== 'none') scheduleRefresh();
}

/** Takes a status an operation answered with, so the list updates without another request. */
export function setStatus(next: GitStatus): void {
  status.value = next;
  repoState.value = 'ready';
}

function progressText(data: Record<string, unknown>): string | null {
  for (const key of ['text', 'message', 'line']) {
    const value = data[key];
    if (typeof value === 'string' && value.trim()) return value.trim();
  }
  return null;
}

/** Subscribes to the tab's socket once per page and loads the first status. */
export function startGitSync(): void {
  if (started) return;
  started = true;
  const { socket } = session();
  socket.on('git', (msg) => {
    if (msg.type === 'progress') {
      const text = progressText(msg.data);
      if (text && busy.value) progress.value = text;
      return;
    }
    // This tab reloads after its own operations already.
    if (msg.data.client !== clientId) scheduleRefresh();
  });
  socket.on('files', refreshIfRepository);
  socket.on('sys', (msg) => msg.type === 'resync' && scheduleRefresh());
  // Git run elsewhere (a terminal) arrives as a git event with op "outside"; coming back to the
  // tab looks again too, in case the socket was away when it happened.
  window.addEventListener('focus', refreshIfRepository);
  if (session().hasGit) void refresh();
  else repoState.value = 'none';
}

/** The first call starts the sync; later ones reload, unless the project has no repository. */
export function syncNow(): void {
  if (!started) startGitSync();
  else if (repoState.value !== 'none') void refresh();
}
