// Opening another feature's panel without importing that feature: the feature that owns a panel
// registers its opener here by name, and the others open it by that name (typed by Openers).
// Every opener is registered when the app registers the features (app/features.ts), before any
// person's click can ask for one.
import type { Budget, DiffRequest } from '../api/checks';

/** What the Evaluate panel of a dataset shows (features/datasets/). */
export interface EvaluateParams {
  dataset: string;
  /** The models to check in the form when it first shows. */
  models?: string[];
  /** The run shown; a new run replaces it. */
  runId?: string;
}

/** What a model diff panel shows (features/modeltools/diff/). */
export interface ModelDiffParams {
  /** What to diff; absent when the panel shows an earlier run. */
  request?: DiffRequest;
  /** The run shown, once started. */
  runId?: string;
}

/** The openers, by name, and the feature that registers each. */
export interface Openers {
  /** The Devices panel beside the file tree (devices). */
  devices: () => void;
  /** The datasets view (datasets). */
  datasets: () => void;
  /** A dataset's Evaluate panel (datasets). */
  evaluate: (params: EvaluateParams) => void;
  /** "Evaluate…" on a model file: its Evaluate panel on the project's first dataset (datasets). */
  evaluateModel: (model: string) => Promise<void>;
  /** The lineage of a file (lineage). */
  lineage: (path: string) => void;
  /** The Training panel (training). */
  training: () => void;
  /** The Training panel on one job (training). */
  trainingJob: (jobId: string) => void;
  /** A commit in the history panel (git). */
  commit: (sha: string) => void;
  /** The Debug Console (debug). */
  repl: () => void;
  /** The budgets form, optionally with budgets to start from, unsaved (checks). */
  budgetsEditor: (draft?: Budget[] | null) => void;
  /** A model diff panel (modeltools). */
  modelDiff: (params: ModelDiffParams) => void;
}

/** An opener was asked for before (or without) the feature that registers it. */
export class OpenerMissingError extends Error {
  constructor(name: string) {
    super(`No feature registered the opener "${name}"`);
    this.name = 'OpenerMissingError';
  }
}

const registered: Partial<Openers> = {};

export function registerOpener<K extends keyof Openers>(name: K, opener: Openers[K]): void {
  registered[name] = opener;
}

/** The opener registered as `name`. */
export function opener<K extends keyof Openers>(name: K): Openers[K] {
  const found = registered[name];
  if (!found) throw new OpenerMissingError(name);
  return found as Openers[K];
}
