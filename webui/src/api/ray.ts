// Training backends, the Ray cluster settings and sweeps (docs/ray.md): hand-kept types of
// server/training/ray/settings.py, server/training/backends.py and server/training/sweeps.py.
import { request } from './client';
import type { JobStatus } from './jobs';

export interface BackendInfo {
  name: string;
  label: string;
  available: boolean;
  hint: string | null;
}

export type RayStorage = 'shared_path' | 's3';

export interface RayOptions {
  address: string;
  auth_header: string;
  storage: RayStorage;
  shared_path: string;
  s3_endpoint: string;
  s3_region: string;
  s3_bucket: string;
  s3_prefix: string;
  s3_access_key_id: string;
  poll_seconds: number;
}

export interface RaySettings extends RayOptions {
  configured: boolean;
  /** Whether the project has its own settings or uses the team default. */
  scope: 'project' | 'default';
  has_auth_token: boolean;
  has_s3_secret: boolean;
}

/** Secrets are write-only: null keeps the stored one, "" clears it. */
export interface RaySettingsUpdate extends RayOptions {
  auth_token: string | null;
  s3_secret_key: string | null;
}

export interface SweepRun {
  job_id: string;
  args: Record<string, string>;
  status: JobStatus | null;
  final: Record<string, unknown>;
}

export interface Sweep {
  id: string;
  backend: string;
  command: string;
  grid: string;
  created_at: string;
  runs: SweepRun[];
}

export interface SweepCreate {
  backend: string;
  command?: string;
  grid: string;
  config?: Record<string, unknown>;
  commit_and_push?: boolean;
  message?: string;
}

const seg = encodeURIComponent;

export const listBackends = () => request<BackendInfo[]>('GET', '/api/training/backends');
export const getRaySettings = (pid: string) => request<RaySettings>('GET', `/api/projects/${seg(pid)}/ray-settings`);
export const putRaySettings = (pid: string, body: RaySettingsUpdate) =>
  request<RaySettings>('PUT', `/api/projects/${seg(pid)}/ray-settings`, { json: body });
export const listSweeps = (pid: string) => request<Sweep[]>('GET', `/api/projects/${seg(pid)}/sweeps`);
export const createSweep = (pid: string, body: SweepCreate) =>
  request<Sweep>('POST', `/api/projects/${seg(pid)}/sweeps`, { json: body });
