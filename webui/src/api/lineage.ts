// Lineage: what made a project file and what was measured on it (docs/lineage.md).
import { request } from './client';

export type LineageNodeKind = 'file' | 'tool_run' | 'job' | 'commit' | 'run';

export interface LineageNode {
  /** `<kind>:<sha256 or row id>` */
  id: string;
  kind: LineageNodeKind;
  label: string;
  data: Record<string, unknown>;
}

export interface LineageEdge {
  source: string;
  target: string;
  kind: 'built' | 'made' | 'input' | 'measured';
}

/** The asked-for file is the first node. */
export interface LineageGraph {
  nodes: LineageNode[];
  edges: LineageEdge[];
}

export const getLineage = (pid: string, path: string) =>
  request<LineageGraph>('GET', `/api/projects/${encodeURIComponent(pid)}/lineage`, { query: { path } });
