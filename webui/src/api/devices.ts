// Devices and their sessions (docs/protocol.md §9): the types of server/devices/models.py (from
// schema.gen.ts) and the tab-facing device events, one function per route.
import { request } from './client';
import type { MnnBackend } from './tools';
import type { components } from './schema.gen';

type Schemas = components['schemas'];

export interface DeviceInfo {
  id?: string;
  name?: string;
  os?: string;
  arch?: string;
  python?: string;
  mnn?: string | null;
  cpus?: number;
  mem?: number;
  agent?: string;
  /** sha256 of the agent.pyz it runs from; null from a source tree. */
  agent_sha256?: string | null;
  /** The doctor's local checks, as of its last connection. */
  checks?: DoctorCheck[];
  /** Seconds its clock was ahead (negative: behind) of the workbench's when it connected. */
  clock_skew?: number;
  /** MNN's backends there, with why each absent one is; null without MNN or from an older agent. */
  backends?: MnnBackend[] | null;
  /** Its own cameras (/dev/videoN) OpenCV opens; null without OpenCV or from an older agent. */
  cameras?: string[] | null;
}

export interface DoctorCheck {
  name: string;
  ok: boolean;
  detail: string;
  fix: string;
  /** false: the agent works without it (MNN, numpy), only some features fail. */
  required: boolean;
}

/** `info` is free-form in the API (what the agent reports when it connects, docs/protocol.md): read as DeviceInfo. */
export type Device = Omit<Schemas['DevicePublic'], 'info'> & { info: DeviceInfo };

export type PairingOption = Schemas['PairingOption'];

export type Pairing = Schemas['PairingPublic'];

export type SessionState = 'open' | 'lost' | 'closed';

export type DeviceSession = Schemas['DeviceSessionPublic'];

export interface SessionStateEvent extends DeviceSession {
  reason: string;
}

export interface SyncDone {
  sid: string;
  files: number;
  sent: string[];
  bytes: number;
  deleted: string[];
  failed: string[];
}

export interface DeviceError {
  sid: string | null;
  code: string;
  message: string;
  ref?: string;
}

export interface RunStarted {
  sid: string;
  pid: number;
  cwd: string;
  debug: boolean;
}

export interface RunLog {
  sid: string;
  stream: 'stdout' | 'stderr' | 'system';
  text: string;
}

export interface RunExit {
  sid: string;
  code: number | null;
  signal: number | null;
}

export interface PerfSample {
  t: number;
  cpu: number;
  rss: number;
  threads: number;
}

export interface OpTime {
  name: string;
  type: string;
  ms: number;
  percent: number;
  mflops: number;
}

export interface BenchResult {
  sid: string;
  ok: boolean;
  error: string | null;
  loops: number;
  min_ms: number;
  median_ms: number;
  p90_ms: number;
  p99_ms: number;
  mean_ms: number;
  ops: OpTime[];
  /** What it ran with (agents before these fields leave them out). */
  backend?: string | null;
  threads?: number | null;
  precision?: string | null;
  power?: string | null;
  /** The shapes run and where each input's values came from (a file, "random", "fill n"). */
  input_shapes?: Record<string, number[]> | null;
  inputs?: Record<string, string> | null;
  /** Why it was refused (input_shape_required, …) and the input that names. */
  code?: string | null;
  input?: string | null;
}

export interface TensorStats {
  min: number;
  max: number;
  mean: number;
  std: number;
}

/** One op output, seen by a tensor watchpoint (the model waits on the device until continued). */
export interface WatchHit {
  sid: string;
  op: string;
  op_type: string;
  /** Which output of the op. */
  index: number;
  shape: number[];
  stats: TensorStats | null;
  histogram: { edges: number[]; counts: number[] } | null;
  sample: number[];
}

export interface WatchDone {
  sid: string;
  ok: boolean;
  hits: number;
  error: string | null;
  code?: string | null;
  input?: string | null;
}

export const listDevices = () => request<Device[]>('GET', '/api/devices');

export const renameDevice = (did: string, name: string) =>
  request<Device>('PATCH', `/api/devices/${encodeURIComponent(did)}`, { json: { name } });

export const revokeDevice = (did: string) =>
  request<void>('DELETE', `/api/devices/${encodeURIComponent(did)}`);

/** The agent was asked to probe its device again (docs/protocol.md, "Fresh facts"). */
export type FactsAsked = Schemas['FactsAsked'];

/** `devices`/`device.facts`: a device's facts probed again, to projects with a session on it. */
export interface DeviceFactsEvent {
  device_id: string;
  reason: 'asked' | 'changed';
  info: DeviceInfo;
}

export const refreshFacts = (did: string) =>
  request<FactsAsked>('POST', `/api/devices/${encodeURIComponent(did)}/facts/refresh`);

export const createPairing = (name: string) =>
  request<Pairing>('POST', '/api/devices/pairings', { json: { name } });

const sessionsBase = (pid: string) => `/api/projects/${encodeURIComponent(pid)}/devices`;

export const listSessions = (pid: string) =>
  request<DeviceSession[]>('GET', `${sessionsBase(pid)}/sessions`);

export const openSession = (pid: string, did: string) =>
  request<DeviceSession>('POST', `${sessionsBase(pid)}/${encodeURIComponent(did)}/sessions`);

export const closeSession = (pid: string, did: string, sid: string) =>
  request<void>('DELETE', `${sessionsBase(pid)}/${encodeURIComponent(did)}/sessions/${encodeURIComponent(sid)}`);

// Team mode: the owner lets other users use a device (server/users/devices.py).
const sharePath = (did: string, name: string) =>
  `/api/devices/${encodeURIComponent(did)}/shares/${encodeURIComponent(name)}`;

export const listShares = (did: string) => request<string[]>('GET', `/api/devices/${encodeURIComponent(did)}/shares`);
export const shareDevice = (did: string, name: string) => request<void>('PUT', sharePath(did, name));
export const unshareDevice = (did: string, name: string) => request<void>('DELETE', sharePath(did, name));
