// Lineage: what made a project file and what was measured on it (docs/lineage.md).
import { request } from './client';
import type { components } from './schema.gen';

type Schemas = components['schemas'];

export type LineageNodeKind = 'file' | 'tool_run' | 'job' | 'commit' | 'run';

export type LineageNode = Schemas['LineageNode'];

export type LineageEdge = Schemas['LineageEdge'];

/** The asked-for file is the first node. */
export type LineageGraph = Schemas['LineageGraph'];

export const getLineage = (pid: string, path: string) =>
  request<LineageGraph>('GET', `/api/projects/${encodeURIComponent(pid)}/lineage`, { query: { path } });
