import { apiUrl, request } from './client';
import type { FileContent, FileEntry, FileOp, SaveResult, UiState } from './types';

const base = (pid: string) => `/api/projects/${encodeURIComponent(pid)}`;

export const listDir = (pid: string, path: string) =>
  request<FileEntry[]>('GET', `${base(pid)}/files`, { query: { path } });

export const readFile = (pid: string, path: string) =>
  request<FileContent>('GET', `${base(pid)}/files/content`, { query: { path } });

export const writeFile = (pid: string, path: string, content: string, etag?: string) =>
  request<SaveResult>('PUT', `${base(pid)}/files/content`, { query: { path }, json: { content, etag } });

/** `trash_id`: a delete's entry in the project's trash, for `restoreFromTrash`. */
export const fileOp = (pid: string, op: FileOp, path: string, to?: string) =>
  request<{ path: string; trash_id?: string | null }>('POST', `${base(pid)}/files/ops`, { json: { op, path, to } });

export const restoreFromTrash = (pid: string, trashId: string) =>
  request<{ path: string }>('POST', `${base(pid)}/files/trash/${encodeURIComponent(trashId)}/restore`);

export function uploadFiles(pid: string, dir: string, files: Iterable<File>) {
  const form = new FormData();
  form.set('dir', dir);
  for (const file of files) form.append('files', file, file.name);
  return request<FileEntry[]>('POST', `${base(pid)}/files/upload`, { form });
}

export const rawUrl = (pid: string, path: string) => apiUrl(`${base(pid)}/files/raw`, { path });

export const getUiState = (pid: string) => request<UiState>('GET', `${base(pid)}/ui-state`);

export const putUiState = (pid: string, state: Record<string, unknown>, keepalive = false) =>
  request<UiState>('PUT', `${base(pid)}/ui-state`, { json: { state }, keepalive });
