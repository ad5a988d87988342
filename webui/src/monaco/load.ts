// Monaco arrives by a dynamic import that the entry asks for beside the workbench's code
// (kernel/prefetch.ts), so the workbench draws its first frame and lays out its dock
// while Monaco's 2.2 MB core chunk is still being downloaded and parsed. Code that only runs
// once an editor or a model exists takes the API from `monacoApi()`; the rest waits for
// `loadMonaco()`, or renders under `monacoReady`.
import { signal } from '@preact/signals';
import type { monaco } from './setup';

type Setup = typeof import('./setup');
export type MonacoApi = typeof monaco;

let pending: Promise<Setup> | null = null;
let loaded: Setup | null = null;
export const monacoReady = signal(false);

// Monaco's modules run as one long task (~0.35 s on a quiet 2-core machine, over a second on a
// loaded one), and a key pressed meanwhile is shown only after it. So Monaco is asked for only
// once the workbench has drawn the files its saved layout shows, as plain text that already
// takes keys (features/editor/EarlyEditor.tsx), and that text has then had no key for a moment:
// a person who starts typing as the file shows sees the keys at once, and Monaco comes at the
// first pause (or after a few seconds of typing without one; its keys then wait, none is lost).
const QUIET_MS = 400;
const LATEST_MS = 2500;
let lastKey = 0;
let started = false;
let letRun: () => void = () => undefined;
const mayRun = new Promise<void>((resolve) => (letRun = resolve));

/** A key was typed into a file shown before Monaco (EarlyEditor.tsx): Monaco waits for a pause. */
export function noteEarlyKey(): void {
  lastKey = performance.now();
}

/** Lets Monaco load and run at the first pause in typing (the workbench has drawn its first files). */
export function letMonacoRun(): void {
  if (started) return; // the first call counts: the frame it follows
  started = true;
  const drawn = performance.now();
  lastKey = Math.max(lastKey, drawn);
  const check = () => {
    const wait = Math.min(lastKey + QUIET_MS, drawn + LATEST_MS) - performance.now();
    if (wait <= 0) letRun();
    else setTimeout(check, wait);
  };
  check();
}

export function loadMonaco(): Promise<Setup> {
  pending ??= mayRun.then(() => import('./setup')).then((setup) => {
    loaded = setup;
    monacoReady.value = true;
    return setup;
  });
  return pending;
}

/** Monaco's API, for code that an editor or a model exists for: Monaco has loaded by then. */
export function monacoApi(): MonacoApi {
  if (!loaded) throw new Error('Monaco is used before it has loaded');
  return loaded.monaco;
}

/** Runs `use` once Monaco has loaded (at once if it has): registrations made at start-up. */
export function whenMonaco(use: (api: MonacoApi) => void): void {
  void loadMonaco().then((setup) => use(setup.monaco));
}
