// The two data hooks panels share instead of hand-rolled loading and busy state: useResource for
// what a panel reads (data, loading, error, reload), useAction for what it does (running, error).
import { useEffect, useState } from 'preact/hooks';

export interface Resource<T> {
  /** The last value read; kept while a reload runs, and when it fails. */
  data: T | null;
  loading: boolean;
  /** What the last read threw, or null once one succeeds. */
  error: unknown;
  reload: () => void;
}

interface ResourceState<T> {
  data: T | null;
  loading: boolean;
  error: unknown;
}

/** Reads `fetcher()` on mount and whenever `deps` change or reload() is called; an answer to an
 * older read is dropped. */
export function useResource<T>(fetcher: () => Promise<T>, deps: readonly unknown[]): Resource<T> {
  const [state, setState] = useState<ResourceState<T>>({ data: null, loading: true, error: null });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setState((old) => (old.loading ? old : { ...old, loading: true }));
    fetcher().then(
      (data) => current && setState({ data, loading: false, error: null }),
      (error: unknown) => current && setState((old) => ({ data: old.data, loading: false, error })),
    );
    return () => { current = false; };
  }, [...deps, round]);
  return { ...state, reload: () => setRound((n) => n + 1) };
}

export interface Action<A extends unknown[], R> {
  /** Runs the action; resolves to its result, or undefined when it threw (see error). */
  run: (...args: A) => Promise<R | undefined>;
  running: boolean;
  /** What the last run threw, described; it stays until the next failure or setError. */
  error: string | null;
  setError: (error: string | null) => void;
}

/** Wraps `fn` with a running flag and its error, described by `describe`. */
export function useAction<A extends unknown[], R>(
  fn: (...args: A) => Promise<R>, describe: (err: unknown) => string = String,
): Action<A, R> {
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (...args: A): Promise<R | undefined> => {
    setRunning(true);
    try {
      return await fn(...args);
    } catch (err) {
      setError(describe(err));
      return undefined;
    } finally {
      setRunning(false);
    }
  };
  return { run, running, error, setError };
}
