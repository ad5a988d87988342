// Training jobs, the project's interpreter and the PAI-DLC settings (docs/training.md, docs/pai-dlc.md): the
// types of server/training/models.py and the cloud routes, one function per route.
import { request } from './client';
import type { components } from './schema.gen';

type Schemas = components['schemas'];

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'stopped';
export type Backend = 'local' | 'pai-dlc' | 'ray';

export type Job = Schemas['JobPublic'];

export type JobCreate = Schemas['JobCreate'];

/** The body of a 409 `not_pushed`: what stands between the work tree and a cloud job. */
export interface NotPushed {
  uncommitted: string[];
  branch: string;
  remote: string;
  ahead: number;
  upstream: string | null;
}

export type LogChunk = Schemas['LogChunk'];

export type MetricPoint = Record<string, unknown>;

export type JobMetrics = Schemas['JobMetrics'];

export type Runtime = Schemas['RuntimePublic'];

/** Websocket payloads on the `jobs` and `log` channels (docs/training.md). */
export type JobLogEvent = Schemas['JobLog'];

/** The `job.metric` event: new points, in the shape `GET …/metrics` answers with all of them. */
export type JobMetricEvent = JobMetrics;

export type ArtifactsProgress = Schemas['ArtifactsProgress'];

export type PulledFile = Schemas['PulledFile'];

export type ArtifactsPulled = Schemas['ArtifactsPulled'];

/** Where and how cloud jobs run (server/training/paidlc/settings.py). */
export interface PaiDlcOptions {
  region: string;
  endpoint: string | null;
  workspace_endpoint: string | null;
  protocol: 'https' | 'http';
  workspace_id: string;
  resource_id: string;
  image: string;
  ecs_spec: string;
  pod_count: number;
  job_type: string;
  oss_bucket: string;
  oss_prefix: string;
  oss_endpoint: string | null;
  oss_path_style: boolean;
  timeout_seconds: number;
  poll_seconds: number;
}

export type CredentialSource = 'chain' | 'access_key';

export type PaiDlcSettings = Schemas['PaiDlcSettingsPublic'];

/** Replaces the settings. Secrets are write-only: left out (null), the stored ones stay. */
export type PaiDlcSettingsUpdate = Schemas['PaiDlcSettingsUpdate'];

export type EcsSpec = Schemas['EcsSpecInfo'];

const seg = encodeURIComponent;
const projectPath = (pid: string, rest: string) => `/api/projects/${seg(pid)}/${rest}`;
const jobPath = (jid: string, rest = '') => `/api/jobs/${seg(jid)}${rest}`;

export const listJobs = (pid: string) => request<Job[]>('GET', projectPath(pid, 'jobs'));
export const submitJob = (pid: string, body: JobCreate) => request<Job>('POST', projectPath(pid, 'jobs'), { json: body });
export const getJob = (jid: string) => request<Job>('GET', jobPath(jid));
export const stopJob = (jid: string) => request<Job>('POST', jobPath(jid, '/stop'), { json: {} });
/** A new job like ``jid``, with the command or config given here instead of its own. */
export const rerunJob = (jid: string, body: { command?: string; config?: Record<string, unknown> }) =>
  request<Job>('POST', jobPath(jid, '/rerun'), { json: body });
/** The job whose model the flow continues from ("Use this model"); nulls when none is marked. */
export type MarkedModel = Schemas['MarkedModel'];

export const getMarked = (pid: string) => request<MarkedModel>('GET', projectPath(pid, 'jobs/marked'));
export const markJob = (pid: string, jobId: string) =>
  request<MarkedModel>('PUT', projectPath(pid, 'jobs/marked'), { json: { job_id: jobId } });
export const unmarkJob = (pid: string) => request<MarkedModel>('DELETE', projectPath(pid, 'jobs/marked'));
export const getLogs = (jid: string, offset: number) =>
  request<LogChunk>('GET', jobPath(jid, '/logs'), { query: { offset: String(offset) } });
export const getMetrics = (jid: string) => request<JobMetrics>('GET', jobPath(jid, '/metrics'));
export const pullArtifacts = (jid: string) => request<ArtifactsPulled>('POST', jobPath(jid, '/artifacts/pull'), { json: {} });

export const getRuntime = (pid: string) => request<Runtime>('GET', projectPath(pid, 'runtime'));
export const setRuntime = (pid: string, interpreter: string | null) =>
  request<Runtime>('PUT', projectPath(pid, 'runtime'), { json: { interpreter } });
export const createVenv = (pid: string, inheritServerPackages: boolean) =>
  request<{ path: string; status: 'started' }>('POST', projectPath(pid, 'runtime/venv'), {
    json: { inherit_server_packages: inheritServerPackages },
  });

export const getPaiSettings = () => request<PaiDlcSettings>('GET', '/api/settings/pai-dlc');
export const putPaiSettings = (body: PaiDlcSettingsUpdate) =>
  request<PaiDlcSettings>('PUT', '/api/settings/pai-dlc', { json: body });
export const listEcsSpecs = () => request<EcsSpec[]>('GET', '/api/settings/pai-dlc/ecs-specs');
