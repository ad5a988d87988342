// Types of the server's HTTP API v1 (aliases of schema.gen.ts) and the per-tab websocket envelope.
import type { BackupMark } from './backups';
import type { components } from './schema.gen';

type Schemas = components['schemas'];

export type Project = Schemas['ProjectPublic'];

export type Template = Schemas['TemplateInfo'];

export type Health = Schemas['Health'];

export type Me = Schemas['UserPublic'];

export type CreateProjectBody =
  | { name: string; template?: string; git?: boolean }
  | { name: string; path: string }
  | { name: string; git_url: string };

export type FileEntry = Schemas['Entry'];

export type FileContent = Schemas['FileContent'];

export type SaveResult = Schemas['Saved'];

export interface ConflictBody {
  detail: string;
  code: 'conflict';
  current: { content: string | null; etag: string };
}

export type FileOp = 'mkdir' | 'create' | 'rename' | 'delete';

export type UiState = Schemas['UiState'];

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
export type SandboxStatus = Schemas['SandboxStatus'];

/** Every event a tab's socket receives (server/api/events.py): a union per channel, narrowed by `type`. */
export type ServerEvent = Schemas['ServerEvent'];
export type Channel = ServerEvent['channel'];
/** The events of one channel; `msg.type` narrows `msg.data`. */
export type ChannelEvent<C extends Channel> = Extract<ServerEvent, { channel: C }>;
export type Envelope = ServerEvent;

export type FileEvent = Schemas['ChangedPath'];

export type FilesChanged = Schemas['FilesChanged'];
