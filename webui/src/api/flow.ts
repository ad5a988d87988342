// The flow of a project, data to device: each step's state and next action (docs/flow.md).
import { request } from './client';
import type { components } from './schema.gen';

type Schemas = components['schemas'];

export type FlowStepId = 'data' | 'train' | 'convert' | 'quantize' | 'evaluate' | 'budgets' | 'deploy' | 'measure';
export type FlowState = 'done' | 'stale' | 'failed' | 'todo';
export type FlowAction = 'datasets' | 'train' | 'tool' | 'budgets' | 'checks' | 'deploy' | 'measure';

export type FlowArtifact = Schemas['FlowArtifact'];

export type FlowNext = Schemas['FlowNext'];

export type FlowStep = Schemas['FlowStep'];

export type Flow = Schemas['Flow'];

export const getFlow = (pid: string) => request<Flow>('GET', `/api/projects/${encodeURIComponent(pid)}/flow`);
