// Model diff, performance budgets and their checks (docs/checks.md).
import { request } from './client';
import type { ToolRun } from './tools';
import type { components } from './schema.gen';

type Schemas = components['schemas'];

export type DiffRequest = Schemas['DiffRequest'];

export interface DiffOutput {
  name: string;
  max_abs_error: number;
  cosine: number;
}

export interface DiffLayer {
  name: string;
  type: string;
  a_ms: number | null;
  b_ms: number | null;
  delta_ms: number | null;
  cosine: number | null;
  max_abs_error: number | null;
}

export interface ChangedOp {
  name: string;
  a_type: string;
  b_type: string;
  a_params: number;
  b_params: number;
  a_quantized: boolean;
  b_quantized: boolean;
}

export interface DiffResult {
  size: { a: number; b: number };
  latency: { a_median_ms: number; b_median_ms: number };
  memory: { a_mb: number; b_mb: number };
  outputs: DiffOutput[];
  layers: DiffLayer[];
  ops_only_in_a: string[];
  ops_only_in_b: string[];
  ops_changed: ChangedOp[];
  warnings: string[];
}

export type Metric = 'latency_ms' | 'size_mb' | 'cosine' | 'max_abs_error' | 'memory_mb' | 'char_accuracy' | 'accuracy';

export type CheckResult = Schemas['CheckResult'];

export type CheckReport = Schemas['CheckReport'];

export type CommitCheck = Schemas['CommitCheck'];

export const startDiff = (pid: string, body: DiffRequest) =>
  request<ToolRun>('POST', `/api/projects/${pid}/tools/diff`, { json: body });

export const runChecks = (pid: string, device?: string) =>
  request<CheckReport>('POST', `/api/projects/${pid}/checks`, { json: device ? { device } : {} });

export const commitChecks = (pid: string) => request<CommitCheck[]>('GET', `/api/projects/${pid}/checks/commits`);

/** One `[[budget]]` table as the checks read it (docs/checks.md, Performance budgets). */
export type Budget = Schemas['Budget'];

/** The tables as written in mnnwb.toml, keys the form does not know included. */
export type BudgetTables = Schemas['BudgetTables'];

export const budgetTables = (pid: string) => request<BudgetTables>('GET', `/api/projects/${pid}/budgets/tables`);

export const saveBudgets = (pid: string, budgets: Record<string, unknown>[]) =>
  request<Budget[]>('PUT', `/api/projects/${pid}/budgets`, { json: { budgets } });

export const budgetTemplate = (pid: string) => request<Budget[]>('GET', `/api/projects/${pid}/budgets/template`);
