// Monaco arrives by a dynamic import that the entry asks for beside the workbench's code
// (features/workbench/prefetch.ts), so the workbench draws its first frame and lays out its dock
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

// Monaco's modules run as one long task (~0.35 s on a quiet 2-core machine). The workbench lets
// them run once it has drawn the files its saved layout shows, as plain text that already takes
// keys (features/editor/EarlyEditor.tsx); the shell's preloads download and compile them
// meanwhile.
let letRun: () => void = () => undefined;
const mayRun = new Promise<void>((resolve) => (letRun = resolve));

/** Lets Monaco's modules run (the workbench has drawn its first files). */
export function letMonacoRun(): void {
  letRun();
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
