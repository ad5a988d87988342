// Datasets (docs/datasets.md): the ones found in a project, and evaluate runs on them.
import { request } from './client';
import type { ToolRun } from './tools';
import type { components } from './schema.gen';

type Schemas = components['schemas'];

export type SkippedFile = Schemas['SkippedFile'];

export type DatasetSummary = Schemas['DatasetSummary'];

const base = (pid: string) => `/api/projects/${encodeURIComponent(pid)}`;

export const listDatasets = (pid: string) => request<DatasetSummary[]>('GET', `${base(pid)}/datasets`);

export const readDataset = (pid: string, path: string) =>
  request<DatasetSummary>('GET', `${base(pid)}/dataset`, { query: { path } });

/** The body of `POST …/tools/evaluate`. */
export interface EvaluateRequest {
  models: string[];
  dataset: string;
  split?: string;
  metric?: string;
  limit?: number;
  input_shapes?: Record<string, number[]>;
}

export const startEvaluate = (pid: string, body: EvaluateRequest) =>
  request<ToolRun>('POST', `${base(pid)}/tools/evaluate`, { json: { ...body } });

/** One model's row of an evaluate result. */
export interface EvaluatedModel {
  model: string;
  runtime: 'onnxruntime' | 'mnn' | 'tflite';
  /** source, or how an MNN model holds its weights: fp32, fp16, weight-quant, int8 */
  kind: string;
  input_shape: number[] | null;
  shape_from_spec: boolean;
  top1?: number;
  top5?: number;
  correct?: number;
  map50?: number;
  metrics?: Record<string, number>;
  /** the first model's headline figure less this one's */
  drop?: number;
  median_ms: number | null;
  p90_ms: number | null;
  mean_ms: number | null;
}

export interface EvaluatedClass {
  class: string;
  support: number;
  models: { correct?: number; recall?: number | null; precision?: number | null; ap50?: number }[];
}

export interface EvaluateAnswer {
  label: string;
  score?: number;
  right?: boolean | number;
}

export interface Disagreement {
  file: string | null;
  sample: string;
  label: string | null;
  answers: EvaluateAnswer[];
}

export interface EvaluateResult {
  dataset: string;
  dataset_kind: string;
  task: 'classification' | 'detection';
  split: string | null;
  metric: string;
  classes: string[];
  samples: number;
  skipped_count: number;
  skipped: SkippedFile[];
  input_shapes: Record<string, Record<string, number[] | null>>;
  preprocessed: { groups: number; median_ms: number };
  models: EvaluatedModel[];
  per_class: EvaluatedClass[] | null;
  confusion: number[][][] | null;
  confusion_columns: string[] | null;
  disagreement_count: number;
  disagreements: Disagreement[];
  elapsed_s: number;
  samples_per_s: number | null;
}
