// The budgets form's rows: each budget of mnnwb.toml as text fields, and back. Keys the form does
// not know stay in `raw` and go back to the server as they came, so a save never drops them.
import type { Budget } from '../../api/checks';

export interface BudgetField {
  key: string;
  label: string;
  unit?: string;
  kind: 'number' | 'integer' | 'text';
}

/** The limits the checks measure (server/checks/models.py Budget), then how they measure. */
export const LIMITS: BudgetField[] = [
  { key: 'max_latency_ms', label: 'Latency at most', unit: 'ms', kind: 'number' },
  { key: 'max_size_mb', label: 'Size at most', unit: 'MiB', kind: 'number' },
  { key: 'min_cosine', label: 'Cosine at least', unit: 'vs reference', kind: 'number' },
  { key: 'max_abs_error', label: 'Max abs error at most', unit: 'vs reference', kind: 'number' },
  { key: 'max_memory_mb', label: 'Memory at most', unit: 'MB', kind: 'number' },
];

export const SETTINGS: BudgetField[] = [
  { key: 'threads', label: 'Threads', kind: 'integer' },
  { key: 'loops', label: 'Loops', kind: 'integer' },
  { key: 'device', label: 'Device', kind: 'text' },
];

const FORM_KEYS = new Set(['model', 'reference', ...LIMITS.map((f) => f.key), ...SETTINGS.map((f) => f.key)]);

export interface Row {
  /** The table as read (or as the template made it), every key included. */
  raw: Record<string, unknown>;
  /** The form's fields as typed; "" leaves the key out. */
  values: Record<string, string>;
}

export function rowOf(raw: Record<string, unknown>): Row {
  const values: Record<string, string> = {};
  for (const key of FORM_KEYS) values[key] = raw[key] === undefined || raw[key] === null ? '' : String(raw[key]);
  return { raw, values };
}

export const templateRow = (budget: Budget): Row =>
  rowOf(Object.fromEntries(Object.entries(budget).filter(([key, v]) => v !== null && FORM_KEYS.has(key) && !isDefault(key, v))));

const DEFAULTS: Record<string, unknown> = { threads: 1, loops: 50, device: 'local' };
const isDefault = (key: string, value: unknown): boolean => DEFAULTS[key] === value;

/** The keys the form does not know, as written (`colour = "blue"`). */
export const unknownKeys = (row: Row): string[] =>
  Object.entries(row.raw).filter(([key]) => !FORM_KEYS.has(key)).map(([key, v]) => `${key} = ${JSON.stringify(v)}`);

/** A typed number as a number; anything else goes to the server as typed, which names what is wrong. */
function parsed(text: string, kind: BudgetField['kind']): unknown {
  const trimmed = text.trim();
  if (kind === 'text' || trimmed === '') return trimmed;
  const n = Number(trimmed);
  return Number.isFinite(n) ? n : trimmed;
}

const kindOf = (key: string): BudgetField['kind'] =>
  [...LIMITS, ...SETTINGS].find((f) => f.key === key)?.kind ?? 'text';

/** The budget to save: the table as read, with the form's keys set or, when empty, left out. */
export function budgetOf(row: Row): Record<string, unknown> {
  const out: Record<string, unknown> = { ...row.raw };
  for (const key of FORM_KEYS) {
    const text = row.values[key] ?? '';
    if (text.trim() === '') delete out[key];
    else out[key] = parsed(text, kindOf(key));
  }
  return out;
}
