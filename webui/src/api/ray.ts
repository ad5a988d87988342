// Training backends, the Ray cluster settings and sweeps (docs/ray.md): the types of
// server/training/ray/settings.py, server/training/backends.py and server/training/sweeps.py.
import { request } from './client';
import type { components } from './schema.gen';

type Schemas = components['schemas'];

export type BackendInfo = Schemas['BackendInfo'];

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

export type RaySettings = Schemas['RaySettingsPublic'];

/** Secrets are write-only: null keeps the stored one, "" clears it. */
export type RaySettingsUpdate = Schemas['RaySettingsUpdate'];

export type SweepRun = Schemas['SweepRun'];

export type Sweep = Schemas['SweepPublic'];

export type SweepCreate = Schemas['SweepCreate'];

const seg = encodeURIComponent;

export const listBackends = () => request<BackendInfo[]>('GET', '/api/training/backends');
export const getRaySettings = (pid: string) => request<RaySettings>('GET', `/api/projects/${seg(pid)}/ray-settings`);
export const putRaySettings = (pid: string, body: RaySettingsUpdate) =>
  request<RaySettings>('PUT', `/api/projects/${seg(pid)}/ray-settings`, { json: body });
export const listSweeps = (pid: string) => request<Sweep[]>('GET', `/api/projects/${seg(pid)}/sweeps`);
export const createSweep = (pid: string, body: SweepCreate) =>
  request<Sweep>('POST', `/api/projects/${seg(pid)}/sweeps`, { json: body });
