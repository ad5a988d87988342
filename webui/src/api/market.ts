// The algorithm market: entries of every source, a package's card, install, publish (docs/market.md).
import { request } from './client';
import type { components } from './schema.gen';

type Schemas = components['schemas'];

export type MarketEntry = Schemas['MarketEntry'];

export type PackageFile = Schemas['FileEntry'];

export type LatencyFigure = Schemas['LatencyFigure'];

export type PackageMetrics = Schemas['Metrics'];

/** One model input; a -1 in `shape` is a dynamic dim. */
export type PackageInput = Schemas['InputSpec'];

export type PackageOutput = Schemas['OutputSpec'];

export type PackageDemo = Schemas['Demo'];

export type VersionInfo = Schemas['VersionInfo'];

export type MarketCard = Schemas['MarketCard'];

/** Exactly one of `project_id` and `new_project`. */
export type InstallRequest = Schemas['InstallRequest'];

export type InstallResult = Schemas['InstallResult'];

export type PublishRequest = Schemas['PublishRequest'];

/** How the market last found a source: offline ones say why (`dns`, `timeout`, `refused`, `tls`…). */
export type SourceStatus = Schemas['SourceStatus'];

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
