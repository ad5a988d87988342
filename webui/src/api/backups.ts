// Hot exit (docs/ide.md, "Nothing lost on reload"): the caller's unsaved edits, kept on the server.
import { request } from './client';
import type { components } from './schema.gen';

type Schemas = components['schemas'];

/** A file's unsaved text and the etag of the file it was edited from. */
export type Backup = Schemas['BackupOut'];

/** What the project page carries of them: which files have one (their text is fetched). */
export interface BackupMark {
  path: string;
  base_etag: string | null;
}

const url = (pid: string) => `/api/projects/${encodeURIComponent(pid)}/backups`;

export const listBackups = (pid: string) => request<Backup[]>('GET', url(pid));

/** `keepalive`: the browser still sends it while the page unloads (small bodies only). */
export const keepBackup = (pid: string, path: string, content: string, baseEtag: string | null, keepalive = false) =>
  request<void>('PUT', url(pid), { query: { path }, json: { content, base_etag: baseEtag }, keepalive });

export const dropBackup = (pid: string, path: string) => request<void>('DELETE', url(pid), { query: { path } });
