// The dock layout, its open editors, the expanded folders and each feature's own keys live in the project's server-side UI
// state, so a refresh (or another machine) finds the workbench as it was left.
import type { ReadonlySignal } from '@preact/signals';
import type { DockviewApi } from 'dockview';
import { getUiState, putUiState } from '../api/files';
import { prefetchedState, type SavedState } from './prefetch';
import { pid } from './session';

const SAVE_DELAY_MS = 400;
// keepalive requests are limited to 64 KB; a layout that grew past it is saved by the timer only.
const KEEPALIVE_MAX = 60_000;
let timer: number | undefined;
let pending = false;
// One request at a time, so an older layout can never land after a newer one.
let inFlight: Promise<unknown> = Promise.resolve();
// Features keep their own keys in the state (e.g. the debugger's breakpoints); keys nobody has
// claimed yet are carried over as loaded, so a save never drops them.
const sections = new Map<string, () => unknown>();
let loaded: Record<string, unknown> = {};

/** Adds a key to every save; `read` returns undefined while the feature has nothing loaded yet. */
export function registerStateSection(key: string, read: () => unknown): void {
  sections.set(key, read);
}

async function fetchUiState(): Promise<SavedState> {
  const early = prefetchedState();
  if (early) return early;
  try {
    return (await getUiState(pid())).state as SavedState;
  } catch {
    return {};
  }
}

export async function loadUiState(): Promise<SavedState> {
  const state = await fetchUiState();
  loaded = { ...(state as Record<string, unknown>), ...loaded };
  return state;
}

function snapshot(api: DockviewApi): SavedState {
  const extra: Record<string, unknown> = {};
  for (const [key, read] of sections) {
    const value = read();
    if (value !== undefined) extra[key] = value;
  }
  return { ...loaded, ...extra, layout: api.toJSON() };
}

function save(api: DockviewApi, keepalive: boolean): void {
  window.clearTimeout(timer);
  pending = false;
  const state = snapshot(api) as Record<string, unknown>;
  const fits = JSON.stringify(state).length < KEEPALIVE_MAX;
  inFlight = inFlight.then(() => putUiState(pid(), state, keepalive && fits)).catch(() => undefined);
}

export function scheduleSave(api: DockviewApi): void {
  window.clearTimeout(timer);
  pending = true;
  timer = window.setTimeout(() => save(api, false), SAVE_DELAY_MS);
}

/** Saves on every layout change and whenever one of `watched` changes (e.g. the expanded folders). */
export function persistUiState(api: DockviewApi, watched: ReadonlySignal<unknown>[] = []): () => void {
  const layout = api.onDidLayoutChange(() => scheduleSave(api));
  const stops = watched.map((value) => value.subscribe(() => scheduleSave(api)));
  // A refresh right after a change must not lose it.
  const flush = () => pending && save(api, true);
  window.addEventListener('pagehide', flush);
  return () => {
    layout.dispose();
    stops.forEach((stop) => stop());
    window.removeEventListener('pagehide', flush);
  };
}
