// Devices and their sessions (docs/protocol.md §9): the types of server/devices/models.py (from
// schema.gen.ts) and the tab-facing device events, one function per route.
import { request } from './client';
import type { components } from './schema.gen';

type Schemas = components['schemas'];

/** What the agent reports (docs/protocol.md); the workbench adds `clock_skew` (seconds its clock
 * was ahead, negative: behind, of the workbench's) when it connects. */
export type DeviceInfo = Schemas['DeviceInfo'] & { clock_skew?: number };

export type DoctorCheck = Schemas['DoctorCheck'];

/** `info` is free-form in the API (what the agent reports when it connects, docs/protocol.md): read as DeviceInfo. */
export type Device = Omit<Schemas['DevicePublic'], 'info'> & { info: DeviceInfo };

export type PairingOption = Schemas['PairingOption'];

export type Pairing = Schemas['PairingPublic'];

export type SessionState = 'open' | 'lost' | 'closed';

export type DeviceSession = Schemas['DeviceSessionPublic'];

export type SessionStateEvent = Schemas['SessionStateEvent'];

export type SyncDone = Schemas['SyncReport'];

export type DeviceError = Schemas['DeviceErrorEvent'];

export type RunStarted = Schemas['RunStartedEvent'];

export type RunLog = Schemas['RunLogEvent'];

export type RunExit = Schemas['RunExitEvent'];

export type PerfSample = Schemas['PerfSample'];

export type OpTime = Schemas['OpTime'];

/** A device benchmark's result (its `ops` sorted by time; agents before some fields leave them null). */
export type BenchResult = Schemas['BenchResultEvent'];

export type TensorStats = Schemas['TensorStats'];

/** One op output, seen by a tensor watchpoint (the model waits on the device until continued). */
/** One op output, seen by a tensor watchpoint (the model waits on the device until continued). */
export type WatchHit = Schemas['WatchHitEvent'];

export type WatchDone = Schemas['WatchDoneEvent'];

export const listDevices = () => request<Device[]>('GET', '/api/devices');

export const renameDevice = (did: string, name: string) =>
  request<Device>('PATCH', `/api/devices/${encodeURIComponent(did)}`, { json: { name } });

export const revokeDevice = (did: string) =>
  request<void>('DELETE', `/api/devices/${encodeURIComponent(did)}`);

/** The agent was asked to probe its device again (docs/protocol.md, "Fresh facts"). */
export type FactsAsked = Schemas['FactsAsked'];

/** `devices`/`device.facts`: a device's facts probed again, to projects with a session on it. */
export type DeviceFactsEvent = Schemas['DeviceFactsEvent'];

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
