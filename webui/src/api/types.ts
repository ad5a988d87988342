// Hand-kept types for the server's HTTP API v1 and the per-tab websocket envelope.
import type { BackupMark } from './backups';

export interface Project {
  id: string;
  name: string;
  path: string;
  template: string | null;
  owner: string;
  created_at: string;
  /** "cloning" while a clone fills the folder (progress on the user socket /api/ws). */
  state: 'ready' | 'cloning';
  /** A folder with `app.mnnplayground` is a playground project (docs/playground.md). */
  kind: 'project' | 'playground';
  playground: { application_name?: string; entry_file?: string; model_name?: string; error?: string } | null;
}

export interface Template {
  name: string;
  title: string;
  description: string;
  default_command: string | null;
}

export interface Health {
  status: string;
  version: string;
}

export interface Me {
  id: string;
  name: string;
  mode: string;
}

export type CreateProjectBody =
  | { name: string; template?: string; git?: boolean }
  | { name: string; path: string }
  | { name: string; git_url: string };

export interface FileEntry {
  name: string;
  path: string;
  type: 'file' | 'dir';
  size: number;
  mtime: number;
}

export interface FileContent {
  path: string;
  content: string | null;
  etag: string;
  encoding: string | null;
  binary: boolean;
  size: number;
}

export interface SaveResult {
  path: string;
  etag: string;
  size: number;
}

export interface ConflictBody {
  detail: string;
  code: 'conflict';
  current: { content: string | null; etag: string };
}

export type FileOp = 'mkdir' | 'create' | 'rename' | 'delete';

export interface UiState {
  state: Record<string, unknown>;
}

export interface PageConfig {
  page: 'home' | 'project' | 'missing';
  project: Project | null;
  version: string;
  ws_path: string | null;
  /** Whether the project folder held a Git repository when the page was served. */
  git?: boolean;
  /** Why the page has no project, when page is "missing". */
  error?: string;
  /** A project page's saved layout and the files it shows, sent with the page
   * (server/web/first_view.py). */
  first_view?: { ui_state: Record<string, unknown>; files: Record<string, FileContent> };
  /** Whether users' code runs sandboxed (docs/security.md, "The sandbox"). */
  sandbox?: SandboxStatus;
  /** A project page's keys the person changed: command id → keys (`GET /api/keybindings`). */
  keybindings?: Record<string, string[]>;
  /** A project page's files with unsaved edits kept on the server (hot exit). */
  backups?: BackupMark[];
}

/** `GET /api/sandbox`, also sent with every page. */
export interface SandboxStatus {
  state: 'on' | 'off' | 'unavailable';
  reason: string | null;
  network: 'none' | 'outbound';
}

export interface Envelope<D = Record<string, unknown>> {
  v: 1;
  seq: number;
  channel: string;
  type: string;
  data: D;
}

export interface FileChange {
  kind: 'added' | 'modified' | 'deleted';
  path: string;
  etag?: string;
}

export interface FilesChanged {
  changes: FileChange[];
  client?: string;
}
