// The algorithm market: entries of every source, a package's card, install, publish (docs/market.md).
import { request } from './client';
import type { LineageGraph } from './lineage';

export interface MarketEntry {
  id: string;
  name: string;
  task: string;
  summary: string;
  /** 'builtin', 'registry', or a configured catalog's name */
  source: string;
  latest: string;
  versions: string[];
  size_bytes?: number | null;
  accuracy?: number | null;
  latency_ms?: number | null;
}

export interface PackageFile {
  path: string;
  sha256: string;
  size: number;
  role?: string;
}

export interface LatencyFigure {
  device: string;
  threads?: number;
  median_ms: number;
  runs?: number;
}

export interface PackageMetrics {
  accuracy?: number | null;
  eval_set?: string | null;
  size_bytes?: number | null;
  latency?: LatencyFigure[];
}

/** One model input; a -1 in `shape` is a dynamic dim. */
export interface PackageInput {
  name: string;
  shape?: number[];
  dtype?: string;
  layout?: string | null;
  size?: number[] | null;
  mean?: number[] | null;
  std?: number[] | null;
  description?: string;
  default_shape?: number[] | null;
  kind?: string | null;
  color?: string | null;
  resize?: string | null;
  scale?: number | null;
}

export interface PackageOutput {
  name: string;
  shape?: number[];
  dtype?: string;
  labels?: string[] | null;
  labels_file?: string | null;
  threshold?: number | null;
  kind?: string | null;
  description?: string;
}

export interface PackageDemo {
  entry?: string;
  args?: string[];
}

export interface VersionInfo {
  version: string;
  published_at?: string | null;
  publisher?: string | null;
  deprecated?: boolean;
  metrics: PackageMetrics;
  files: PackageFile[];
  lineage?: LineageGraph | null;
  inputs: PackageInput[];
  outputs: PackageOutput[];
  license: string;
  authors: string[];
  demo?: PackageDemo | null;
}

export interface MarketCard {
  id: string;
  name: string;
  task: string;
  summary: string;
  source: string;
  latest: string;
  readme: string;
  /** The latest version's license file, when the server keeps the package's files. */
  license_text?: string;
  versions: VersionInfo[];
}

/** Exactly one of `project_id` and `new_project`. */
export interface InstallRequest {
  source?: string;
  project_id?: string;
  new_project?: string;
  /** A new project is a Git repository with one commit of the package (default true). */
  git?: boolean;
}

export interface InstallResult {
  project_id: string;
  files: string[];
  demo?: string | null;
}

export interface PublishRequest {
  id: string;
  version: string;
  files: string[];
  name?: string;
  task?: string;
  summary?: string;
  license?: string;
  authors?: string[];
  accuracy?: number;
  eval_set?: string;
}

/** How the market last found a source: offline ones say why (`dns`, `timeout`, `refused`, `tls`…). */
export interface SourceStatus {
  name: string;
  kind: string;
  url?: string | null;
  state: 'online' | 'offline';
  reason?: string | null;
  detail?: string | null;
  packages?: number | null;
}

export interface MarketQuery {
  q?: string;
  task?: string;
  source?: string;
}

const enc = encodeURIComponent;

export const listMarket = (query: MarketQuery = {}) =>
  request<MarketEntry[]>('GET', '/api/market', { query: { ...query } });

export const listSources = () => request<SourceStatus[]>('GET', '/api/market-sources');

export const getCard = (id: string, source?: string) =>
  request<MarketCard>('GET', `/api/market/${enc(id)}`, { query: { source } });

export const installVersion = (id: string, version: string, body: InstallRequest) =>
  request<InstallResult>('POST', `/api/market/${enc(id)}/versions/${enc(version)}/install`, { json: body });

export const publishModel = (pid: string, body: PublishRequest) =>
  request<VersionInfo>('POST', `/api/projects/${enc(pid)}/publish`, { json: body });
