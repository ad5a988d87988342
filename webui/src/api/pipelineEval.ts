// A pipeline evaluated on a labelled set (docs/pipelines.md#evaluating-one), as a tool run.
import { request } from './client';
import type { ToolRun } from './tools';
import type { components } from './schema.gen';

type Schemas = components['schemas'];

const projectBase = (pid: string) => `/api/projects/${encodeURIComponent(pid)}`;

export type PipelineEvaluateRequest = Schemas['PipelineEvaluateRequest'];

/** One image of the set: what was expected, what the last stage gave, its score. */
export interface EvaluatedSample {
  input: string;
  expected: string;
  got: string | null;
  score: number;
  exact: boolean;
  ms: number | null;
  reason: string | null;
}

/** A run's `evaluation`: the figure over the set, named by its metric. */
export interface PipelineEvaluation {
  dataset: string;
  labels_file: string;
  metric: 'char_accuracy' | 'accuracy';
  value: number;
  exact_match: number;
  count: number;
  median_ms: number;
  samples: EvaluatedSample[];
}

export const evaluatePipeline = (pid: string, body: PipelineEvaluateRequest) =>
  request<ToolRun>('POST', `${projectBase(pid)}/pipelines/evaluate`, { json: body });
