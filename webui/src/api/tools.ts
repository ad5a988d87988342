// Model tools: runs of convert / quantize / inspect / compare / benchmark (docs/model-tools.md).
import { request } from './client';
import type { components } from './schema.gen';

type Schemas = components['schemas'];

export type ToolName = 'convert' | 'quantize' | 'inspect' | 'compare' | 'benchmark';
export type RunStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'crashed' | 'cancelled';

export const ACTIVE_STATUSES: readonly RunStatus[] = ['queued', 'running'];

export type ToolRun = Schemas['ToolRunPublic'];

export type ToolLog = Schemas['ToolLog'];

/** `progress` events on the `tools` channel. */
export type ToolProgress = Schemas['ToolProgress'];

/** `log` events on the `tools` channel: one line of a run's log. */
export type ToolLogLine = Schemas['ToolLogLine'];

export interface TensorInfo {
  name: string;
  shape?: (number | string)[] | null;
  dtype?: string | null;
  layout?: string | null;
}

export interface ConvertResult {
  output: string;
  framework: string;
  input_size: number;
  output_size: number;
  compression_ratio: number;
  inputs: TensorInfo[];
  outputs: TensorInfo[];
  warnings: string[];
}

export interface QuantizeLayer {
  name: string;
  tensor?: string;
  cosine: number | null;
  overflow_ratio?: number | null;
}

/** Where and how MNN ran a model (`backend`, `threads`, `precision`, `power` of the run). */
export interface RuntimeRecord {
  backend: string;
  threads: number;
  precision: string;
  power: string;
}

/** Quantize's latency check: both models on the run's backend, medians of `runs` runs. */
export interface QuantizeSpeed extends RuntimeRecord {
  runs: number;
  float_ms: number;
  int8_ms: number;
}

/** Quantize with a dataset: the float and the int8 model evaluated on its val split. */
export interface QuantizeAccuracy {
  dataset: string;
  split: string | null;
  metric: string;
  headline: 'top1' | 'map50';
  samples: number;
  skipped_count: number;
  float: Record<string, number>;
  int8: Record<string, number>;
  drop: number;
  disagreement_count: number;
}

export interface QuantizeResult {
  output: string;
  input_size: number;
  output_size: number;
  compression_ratio: number;
  samples: number;
  /** Calibration images MNN cannot decode: left out, with the reason. */
  skipped?: { file: string; reason: string }[];
  speed?: QuantizeSpeed;
  accuracy?: QuantizeAccuracy;
  warnings?: string[];
  layers: QuantizeLayer[];
  cosine: number | null;
  inputs: TensorInfo[];
  outputs: TensorInfo[];
}

export interface InspectResult {
  format: string;
  file_size: number;
  inputs: TensorInfo[];
  outputs: TensorInfo[];
  op_histogram: { type: string; count: number }[];
  op_count: number;
  params: number | null;
  mflops: number | null;
  memory_mb: number | null;
  version: string | null;
  uuid: string | null;
  biz_code: string | null;
  source_format?: string | null;
  producer?: string | null;
  converted_for_inspection?: boolean;
}

export interface ErrorFigures {
  max_abs_error: number;
  mean_abs_error: number;
  relative_error: number;
  cosine: number;
}

export interface CompareOutput extends ErrorFigures {
  name: string;
  shape: number[];
  passed: boolean;
}

export interface CompareResult extends ErrorFigures {
  reference_kind: 'onnxruntime' | 'mnn';
  inputs: { name: string; shape: number[]; source: string }[];
  seed: number;
  threshold: number;
  outputs: CompareOutput[];
  passed: boolean;
  layers: (ErrorFigures & { name: string; shape: number[]; model_name?: string; matched_by?: string })[];
  /** How many of the model's float tensors were paired with a reference tensor, and how. */
  coverage?: { matched: number; of: number; by: Record<string, number>; unmatched: string[]; reason?: string };
  /** Reference tensors the converter fused away (no MNN tensor holds their values). */
  fused_away?: string[];
  first_divergent?: { name: string; model_name: string; relative_error: number; cosine: number; why: string } | null;
  runtime?: RuntimeRecord;
}

/** An op's row: the device benchmark's, but `mflops` is null where MNN does not tell. */
export type BenchmarkOp = Omit<Schemas['OpTime'], 'mflops'> & { mflops: number | null };

export interface BenchmarkResult {
  config: Record<string, unknown>;
  runtime?: RuntimeRecord;
  min_ms: number;
  median_ms: number;
  mean_ms: number;
  p90_ms: number;
  p99_ms: number;
  max_ms: number;
  histogram: { edges: number[]; counts: number[] };
  mflops: number | null;
  memory_mb: number | null;
  ops: BenchmarkOp[];
  op_total_ms: number | null;
  profiled_median_ms: number | null;
  op_coverage: number | null;
  per_op_loops: number;
}

/** One of MNN's backends on a machine: usable, or why not (`GET /api/tools/backends`, a device's info). */
export type MnnBackend = Schemas['MnnBackend'];

export type MnnBackends = Schemas['MnnBackends'];

export const listBackends = () => request<MnnBackends>('GET', '/api/tools/backends');

const projectBase = (pid: string) => `/api/projects/${encodeURIComponent(pid)}`;
const runBase = (rid: string) => `/api/tool-runs/${encodeURIComponent(rid)}`;

/** `try`: Try it, started from a model's view rather than a tool panel. */
export const startRun = (pid: string, tool: ToolName | 'try', args: Record<string, unknown>) =>
  request<ToolRun>('POST', `${projectBase(pid)}/tools/${tool}`, { json: args });

export const getRun = (rid: string) => request<ToolRun>('GET', runBase(rid));

export const cancelRun = (rid: string) => request<ToolRun>('POST', `${runBase(rid)}/cancel`);

export const listRuns = (pid: string, limit = 100) =>
  request<ToolRun[]>('GET', `${projectBase(pid)}/tool-runs`, { query: { limit: String(limit) } });

export const readRunLog = (rid: string, offset = 0) =>
  request<ToolLog>('GET', `${runBase(rid)}/log`, { query: { offset: String(offset) } });

// Model specs (docs/model-spec.md): a model's inputs and outputs declared once.
export interface SpecInput {
  name: string;
  shape: number[];
  default_shape?: number[];
  dtype?: string;
  kind?: 'image' | 'audio' | 'tensor';
  layout?: string;
  color?: 'RGB' | 'BGR' | 'GRAY';
  resize?: 'stretch' | 'letterbox' | 'center_crop';
  scale?: number;
  mean?: number[];
  std?: number[];
  sample_rate?: number;
  description?: string;
}

export interface SpecOutput {
  name: string;
  kind?: 'logits' | 'probabilities' | 'boxes' | 'text' | 'mask' | 'embedding' | 'tensor';
  shape?: number[];
  labels?: string[];
  labels_file?: string;
  characters?: string;
  characters_file?: string;
  threshold?: number;
  description?: string;
}

export interface SpecBody {
  format?: number;
  inputs: SpecInput[];
  outputs: SpecOutput[];
}

export type DeclaredTensor = Schemas['DeclaredTensor'];

/** `spec` is free-form in the API (checked by the spec's own reader): read as SpecBody. */
export type ModelSpecInfo = Omit<Schemas['ModelSpecPublic'], 'spec'> & { spec: SpecBody };

/** One output of a Try it run, read by its kind. */
export interface TryOutput {
  kind: 'classes' | 'boxes' | 'text' | 'mask' | 'embedding' | 'tensor' | 'error';
  shape: number[];
  top?: { index: number; label: string; score: number }[];
  boxes?: { box: number[]; score: number; class: number; label: string }[];
  text?: string;
  size?: number[];
  rows?: number[][];
  classes?: { index: number; label: string; pixels: number }[];
  length?: number;
  norm?: number;
  head?: number[];
  min?: number | null;
  max?: number | null;
  mean?: number | null;
  error?: string;
}

export interface TryResult {
  input: string;
  input_shapes: Record<string, number[]>;
  input_file: { width: number; height: number } | null;
  latency_ms: number;
  outputs: Record<string, TryOutput>;
}

const specUrl = (pid: string) => `${projectBase(pid)}/model-spec`;

export const getModelSpec = (pid: string, path: string) =>
  request<ModelSpecInfo>('GET', specUrl(pid), { query: { path } });

export const putModelSpec = (pid: string, path: string, spec: SpecBody) =>
  request<ModelSpecInfo>('PUT', specUrl(pid), { query: { path }, json: spec });

// Pipelines (docs/pipelines.md): a run's result, per input.
export interface PipelineStage {
  id: string;
  kind: 'input' | 'model' | 'step';
  input: string | null;
  ms: number;
  /** A model stage's MNN session memory in MB (the most over its items); null for a step. */
  memory_mb?: number | null;
  items: Record<string, unknown>[];
}

export interface PipelineInputResult {
  input: string;
  ms: number;
  /** All the pipeline's MNN sessions together, in MB. */
  memory_mb?: number | null;
  /** The running process's peak resident memory, in MB. */
  peak_rss_mb?: number | null;
  /** The input picture's size; absent for a `.wav` input, which has `audio` instead. */
  image?: { width: number; height: number };
  audio?: { kind: 'audio'; samples: number; sample_rate: number; seconds: number };
  stages: PipelineStage[];
  /** One span per session call or step; `batch`: the items of a batched call (docs/pipelines.md). */
  timeline: { stage: string; item: number | null; start_ms: number; end_ms: number; batch?: number }[];
}

export interface PipelineResult {
  pipeline: string;
  inputs: PipelineInputResult[];
  failed: { input: string; reason: string }[];
  summary: Record<string, unknown>;
  device?: { id: string; name: string };
  /** A run cancelled on a device: the inputs it did of those given (docs/pipelines.md). */
  stopped?: { done: number; given: number };
}

/** How one model stage runs instead (docs/pipelines.md#variants-of-a-stage). */
export type StageVariant = Schemas['StageVariant'];

export type PipelineRunRequest = Schemas['PipelineRunRequest'];

export const runPipeline = (pid: string, body: PipelineRunRequest) =>
  request<ToolRun>('POST', `${projectBase(pid)}/pipelines/run`, { json: body });

export type StageFigures = Schemas['StageFigures'];

export type EndToEndFigures = Schemas['EndToEndFigures'];

export type Divergence = Schemas['Divergence'];

export type FirstDivergence = Schemas['FirstDivergence'];

export type StageComparison = Schemas['StageComparison'];

export type PipelineEndToEnd = Schemas['EndToEnd'];

export type PipelineComparison = Schemas['PipelineComparison'];

export const comparePipelineRuns = (pid: string, a: string, b: string) =>
  request<PipelineComparison>('POST', `${projectBase(pid)}/pipelines/compare`, { json: { a, b } });
