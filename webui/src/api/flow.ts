// The flow of a project, data to device: each step's state and next action (docs/flow.md).
import { request } from './client';

export type FlowStepId = 'data' | 'train' | 'convert' | 'quantize' | 'evaluate' | 'budgets' | 'deploy' | 'measure';
export type FlowState = 'done' | 'stale' | 'failed' | 'todo';
export type FlowAction = 'datasets' | 'train' | 'tool' | 'budgets' | 'checks' | 'deploy' | 'measure';

export interface FlowArtifact {
  path: string;
  sha256: string | null;
  /** The lineage route that explains it; null for a folder (a dataset). */
  lineage: string | null;
}

export interface FlowNext {
  action: FlowAction;
  label: string;
  tool: string | null;
  /** Filled from the step before (a tool's form fields). */
  args: Record<string, unknown>;
}

export interface FlowStep {
  id: FlowStepId;
  title: string;
  state: FlowState;
  artifact: FlowArtifact | null;
  detail: string;
  next: FlowNext | null;
}

export interface Flow {
  steps: FlowStep[];
}

export const getFlow = (pid: string) => request<Flow>('GET', `/api/projects/${encodeURIComponent(pid)}/flow`);
