// The Git flow's HTTP API (docs/git.md): the types of server/gitflow/models.py and one
// function per route under /api/projects/{pid}/git/.
import { apiUrl, request } from './client';
import type { ToolRun } from './tools';
import type { components } from './schema.gen';

type Schemas = components['schemas'];

export type ChangeKind = 'added' | 'modified' | 'deleted' | 'renamed' | 'typechange';

export type GitFileChange = Schemas['FileChange'];

export type GitStatus = Schemas['Status'];

export type GitDiff = Schemas['Diff'];

export type CommitInfo = Schemas['CommitInfo'];

export type CommitDetail = Schemas['CommitDetail'];

export type ConflictChunk = Schemas['ConflictChunk'];

/** A conflicted file's three versions (index stages 1–3) and its hunks. */
export type ConflictFile = Schemas['ConflictFile'];

export type BlameRange = Schemas['BlameRange'];

/** Who last changed each line of a file at a commit (`git blame`). */
export type Blame = Schemas['Blame'];

export type Branch = Schemas['Branch'];

export type Remote = Schemas['Remote'];

/** A ref as a label on a commit (annotated tags peeled to their commit). */
export type RefLabel = Schemas['RefLabel'];

export type StashEntry = Schemas['StashEntry'];

export type StashApplied = Schemas['StashApplied'];

export interface Credentials {
  username?: string;
  password?: string;
}

export type SyncBody = Schemas['SyncRequest'];

/** A remote with remembered credentials: the username only, the password never comes back. */
export type SavedCredential = Schemas['SavedCredential'];

export type FetchResult = Schemas['FetchResult'];

export type PullResult = Schemas['PullResult'];

export type MergeResult = Schemas['MergeResult'];

export type PickResult = Schemas['PickResult'];

export type TagInfo = Schemas['TagInfo'];

export type TagPushResult = Schemas['TagPushResult'];

export type PushResult = Schemas['PushResult'];

/** The caller's Git identity, used when a repository names none (both null until set). */
export type GitIdentity = Schemas['GitIdentityOut'];

export type SyncOp = 'fetch' | 'pull' | 'push';
export type SyncResult = FetchResult | PullResult | PushResult;

const git = (pid: string, rest: string) => `/api/projects/${encodeURIComponent(pid)}/git/${rest}`;
const seg = encodeURIComponent;

export const getStatus = (pid: string) => request<GitStatus>('GET', git(pid, 'status'));
export const initRepo = (pid: string) => request<GitStatus>('POST', git(pid, 'init'), { json: {} });

/** Start tracking with Git: a repository whose first commit holds the project's files (a default
 * `.gitignore` first when there is none). */
export const startTracking = (pid: string) => request<GitStatus>('POST', git(pid, 'init'), { json: { commit: true } });

export const getDiff = (pid: string, path: string, staged: boolean) =>
  request<GitDiff>('GET', git(pid, 'diff'), { query: { path, staged } });

export const stagePaths = (pid: string, paths: string[]) =>
  request<GitStatus>('POST', git(pid, 'stage'), { json: { paths } });
export const unstagePaths = (pid: string, paths: string[]) =>
  request<GitStatus>('POST', git(pid, 'unstage'), { json: { paths } });
export const discardPaths = (pid: string, paths: string[]) =>
  request<GitStatus>('POST', git(pid, 'discard'), { json: { paths } });

/** Part of a file staged or unstaged: the index holds ``text``, computed from its blob ``base``. */
export const stageText = (pid: string, path: string, text: string, base: string | null) =>
  request<GitStatus>('POST', git(pid, 'stage-text'), { json: { path, text, base } });
/** Part of a file's changes discarded: the work-tree file (still blob ``base``) holds ``text``. */
export const discardText = (pid: string, path: string, text: string, base: string | null) =>
  request<GitStatus>('POST', git(pid, 'discard-text'), { json: { path, text, base } });

export const merge = (pid: string, branch: string) =>
  request<MergeResult>('POST', git(pid, 'merge'), { json: { branch } });

/** ``git cherry-pick`` (or ``git revert``) of one commit onto HEAD. */
export const pickCommit = (pid: string, sha: string, revert: boolean) =>
  request<PickResult>('POST', git(pid, `commits/${seg(sha)}/${revert ? 'revert' : 'cherry-pick'}`), { json: {} });

export const commit = (pid: string, message: string, amend = false) =>
  request<CommitInfo>('POST', git(pid, 'commit'), { json: { message, amend } });

/** One page of history: HEAD's, or with `all` every branch's, remote branch's and tag's. */
export const getLog = (pid: string, limit = 200, skip = 0, all = false) =>
  request<CommitInfo[]>('GET', git(pid, 'log'), { query: { limit: String(limit), skip: String(skip), all: String(all) } });
export const getCommit = (pid: string, sha: string) => request<CommitDetail>('GET', git(pid, `commits/${seg(sha)}`));
export const getCommitDiff = (pid: string, sha: string, path: string) =>
  request<GitDiff>('GET', git(pid, `commits/${seg(sha)}/diff`), { query: { path } });

export const getBlame = (pid: string, path: string, rev = 'HEAD') =>
  request<Blame>('GET', git(pid, 'blame'), { query: { path, rev } });
export const getConflict = (pid: string, path: string) =>
  request<ConflictFile>('GET', git(pid, 'conflict'), { query: { path } });
/** Writes the resolution (the text, or one side whole) and stages it. */
export const resolveConflict = (pid: string, path: string, resolution: { content: string } | { take: 'ours' | 'theirs' }) =>
  request<GitStatus>('POST', git(pid, 'resolve'), { json: { path, ...resolution } });

/** A tag at ``target`` (HEAD when null); annotated when ``message`` is not empty. */
export const createTag = (pid: string, name: string, target: string | null, message = '') =>
  request<TagInfo>('POST', git(pid, 'tags'), { json: { name, target, message } });
export const deleteTag = (pid: string, name: string) =>
  request<void>('DELETE', git(pid, `tags/${name.split('/').map(seg).join('/')}`));
export const pushTag = (pid: string, tag: string, body: SyncBody) =>
  request<TagPushResult>('POST', git(pid, 'tags/push'), { json: { ...body, tag } });

export const listBranches = (pid: string) => request<Branch[]>('GET', git(pid, 'branches'));
export const listRefs = (pid: string) => request<RefLabel[]>('GET', git(pid, 'refs'));
export const createBranch = (pid: string, name: string) =>
  request<Branch>('POST', git(pid, 'branches'), { json: { name } });
export const deleteBranch = (pid: string, name: string, force = false) =>
  request<void>('DELETE', git(pid, `branches/${name.split('/').map(seg).join('/')}`), { query: { force } });
export const checkout = (pid: string, branch: string) =>
  request<GitStatus>('POST', git(pid, 'checkout'), { json: { branch } });

export const getIdentity = () => request<GitIdentity>('GET', '/api/git/identity');
export const setIdentity = (name: string, email: string) =>
  request<GitIdentity>('PUT', '/api/git/identity', { json: { name, email } });

export const listRemotes = (pid: string) => request<Remote[]>('GET', git(pid, 'remotes'));
export const addRemote = (pid: string, name: string, url: string) =>
  request<Remote>('POST', git(pid, 'remotes'), { json: { name, url } });
export const removeRemote = (pid: string, name: string) =>
  request<void>('DELETE', git(pid, `remotes/${seg(name)}`));

export const listSavedCredentials = (pid: string) => request<SavedCredential[]>('GET', git(pid, 'credentials'));
export const forgetSavedCredentials = (pid: string, remote: string) =>
  request<void>('DELETE', git(pid, `credentials/${seg(remote)}`));

export const sync = (pid: string, op: SyncOp, body: SyncBody) =>
  request<SyncResult>('POST', git(pid, op), { json: body });

export const listStashes = (pid: string) => request<StashEntry[]>('GET', git(pid, 'stashes'));
export const pushStash = (pid: string, message: string, includeUntracked: boolean) =>
  request<StashEntry>('POST', git(pid, 'stashes'), { json: { message, include_untracked: includeUntracked } });
export const applyStash = (pid: string, index: number, pop: boolean) =>
  request<StashApplied>('POST', git(pid, `stashes/${index}/${pop ? 'pop' : 'apply'}`), { json: {} });
export const dropStash = (pid: string, index: number) => request<void>('DELETE', git(pid, `stashes/${index}`));

/** A file as it is at a revision: a commit, `HEAD`, `<rev>^` (its first parent) or `:0` (the index). */
export const blobUrl = (pid: string, rev: string, path: string) => apiUrl(git(pid, 'blob'), { rev, path });
/** Starts Inspect on a model as it is at a revision (the run is followed like any tool run). */
export const inspectBlob = (pid: string, rev: string, path: string) =>
  request<ToolRun>('POST', git(pid, 'blob-inspect'), { json: { rev, path } });
