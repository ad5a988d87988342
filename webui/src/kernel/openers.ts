// Opening another feature's panel without importing that feature: the feature that owns a panel
// registers its opener here by name, and the others open it by that name (typed by Openers).
// Every opener is registered when the app registers the features (app/features.ts), before any
// person's click can ask for one.

/** What the Evaluate panel of a dataset shows (features/datasets/). */
export interface EvaluateParams {
  dataset: string;
  /** The models to check in the form when it first shows. */
  models?: string[];
  /** The run shown; a new run replaces it. */
  runId?: string;
}

/** The openers, by name, and the feature that registers each. */
export interface Openers {
  /** A dataset's Evaluate panel (datasets). */
  evaluate: (params: EvaluateParams) => void;
  /** "Evaluate…" on a model file: its Evaluate panel on the project's first dataset (datasets). */
  evaluateModel: (model: string) => Promise<void>;
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
