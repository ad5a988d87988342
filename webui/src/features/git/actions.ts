// What the Git panel's buttons do: each operation reports failures the way a person can act on
// them — blocking files in a list, a credential prompt on an auth failure, the rest as a toast.
import { ApiError, errorMessage } from '../../api/client';
import * as api from '../../api/git';
import type { GitDiff, GitFileChange, SyncOp, SyncResult } from '../../api/git';
import { applyPick, type LineChange, type Pick } from './hunks';
import { confirmDialog, promptDialog } from '../../ui/dialogs';
import { notify } from '../../ui/toast';
import { pid } from '../../kernel/session';
import { signedIn } from './credentials';
import { askCredentials, askIdentity, askStash, showBlocked, showRemotes } from './dialogs';
import { openMerge } from './open';
import { busy, draftMessage, progress, refresh, setStatus, status } from '../../kernel/gitStore';


function blockingFiles(err: unknown): string[] | null {
  if (!(err instanceof ApiError)) return null;
  const files = err.body.files;
  return Array.isArray(files) && files.length > 0 ? files.map(String) : null;
}

function report(err: unknown, title: string): void {
  const files = blockingFiles(err);
  if (files) showBlocked(title, errorMessage(err), files);
  else notify(errorMessage(err));
}

async function run<T>(label: string, title: string, work: () => Promise<T>): Promise<T | null> {
  busy.value = label;
  progress.value = null;
  try {
    return await work();
  } catch (err) {
    report(err, title);
    return null;
  } finally {
    busy.value = null;
    progress.value = null;
    void refresh();
  }
}

const paths = (files: GitFileChange[]) => files.map((f) => f.path);

/** Runs ``work``; when no author is known, asks for the person's identity once and runs it again. */
async function withIdentity<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== 'no_identity') throw err;
    const saved = await askIdentity('Git needs your name and email to sign this. They are kept for your next commits too.');
    if (!saved) throw err;
    return await work();
  }
}

export const stage = (files: GitFileChange[]) =>
  run('Staging…', 'Cannot stage', async () => setStatus(await api.stagePaths(pid(), paths(files))));

export type PartOp = 'stage' | 'unstage' | 'discard';

const PART_LABELS: Record<PartOp, [string, string]> = {
  stage: ['Staging…', 'Cannot stage'],
  unstage: ['Unstaging…', 'Cannot unstage'],
  discard: ['Discarding…', 'Cannot discard'],
};

/**
 * Stages, unstages or discards the picked lines of a diff (``original`` → ``modified`` as shown,
 * with their blob ids in ``diff``). Staging writes the index (the diff's old side), unstaging
 * the index too (its new side), discarding the work-tree file (its new side). Discarding asks first.
 */
export async function stagePart(op: PartOp, diff: GitDiff, original: string, modified: string,
  changes: readonly LineChange[], pick: Pick): Promise<void> {
  if (op === 'discard') {
    const answer = await confirmDialog('Discard these changes?', `The picked changes to ${diff.path} will be lost. This cannot be undone.`, {
      confirm: 'Discard',
      danger: true,
    });
    if (!answer.ok) return;
  }
  const [label, title] = PART_LABELS[op];
  await run(label, title, async () => {
    if (op === 'stage') return setStatus(await api.stageText(pid(), diff.path, applyPick(original, modified, changes, pick), diff.old_sha));
    const text = applyPick(original, modified, changes, pick, true);
    if (op === 'unstage') return setStatus(await api.stageText(pid(), diff.path, text, diff.new_sha));
    return setStatus(await api.discardText(pid(), diff.path, text, diff.new_sha));
  });
}

export const unstage = (files: GitFileChange[]) =>
  run('Unstaging…', 'Cannot unstage', async () => setStatus(await api.unstagePaths(pid(), paths(files))));

export async function discard(files: GitFileChange[], untracked: boolean): Promise<void> {
  const what = files.length === 1 ? files[0].path : `${files.length} files`;
  const message = untracked
    ? `${what} will be deleted. This cannot be undone.`
    : `Your changes to ${what} will be lost. This cannot be undone.`;
  const answer = await confirmDialog(untracked ? `Delete ${what}?` : `Discard changes in ${what}?`, message, {
    confirm: untracked ? 'Delete' : 'Discard',
    danger: true,
  });
  if (!answer.ok) return;
  await run('Discarding…', 'Cannot discard', async () => setStatus(await api.discardPaths(pid(), paths(files))));
}

export const commit = (message: string, amend = false) =>
  run(amend ? 'Amending…' : 'Committing…', 'Cannot commit', () => withIdentity(() => api.commit(pid(), message, amend)));

export const initRepository = () =>
  run('Initializing…', 'Cannot initialize', async () => setStatus(await api.initRepo(pid())));

/** A repository with one commit of the project's files; asks for a name and email when none is known. */
export const startTracking = () =>
  run('Starting to track…', 'Cannot start tracking with Git', () => withIdentity(async () => setStatus(await api.startTracking(pid()))));

export const checkout = (branch: string) =>
  run(`Switching to ${branch}…`, `Cannot switch to ${branch}`, async () => setStatus(await api.checkout(pid(), branch)));

export const createBranch = (name: string) =>
  run('Creating branch…', 'Cannot create the branch', async () => {
    await api.createBranch(pid(), name);
    setStatus(await api.checkout(pid(), name));
  });

/** Deletes a branch after asking; when Git refuses it as unmerged, offers to force it. */
export async function deleteBranch(name: string): Promise<void> {
  const answer = await confirmDialog(`Delete branch ${name}?`, `The branch ${name} will be deleted.`, {
    confirm: 'Delete',
    danger: true,
  });
  if (!answer.ok) return;
  busy.value = `Deleting ${name}…`;
  try {
    await api.deleteBranch(pid(), name);
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== 'unmerged_branch') return report(err, `Cannot delete ${name}`);
    const force = await confirmDialog(`${name} is not merged`, `${err.message} Its commits may be lost. Delete it anyway?`, {
      confirm: 'Force delete',
      danger: true,
    });
    if (force.ok) await api.deleteBranch(pid(), name, true).catch((e: unknown) => report(e, `Cannot delete ${name}`));
  } finally {
    busy.value = null;
    void refresh();
  }
}

const SYNC_LABELS: Record<SyncOp, string> = { fetch: 'Fetching…', pull: 'Pulling…', push: 'Pushing…' };

// Without typed credentials the server uses the ones it remembers for this remote, if any.
async function withCredentials<T>(op: string, remote: string, call: (body: api.SyncBody) => Promise<T>): Promise<T> {
  let remember = false;
  for (;;) {
    try {
      return await call({ remote, ...signedIn.get(remote), remember });
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'auth_failed') throw err;
      signedIn.delete(remote);
      const given = await askCredentials(remote, err.message);
      if (!given) throw new Error(`${op} cancelled: ${err.message}`);
      signedIn.set(remote, { username: given.username, password: given.password });
      remember = given.remember;
    }
  }
}

const syncWithPrompt = (op: SyncOp, remote: string): Promise<SyncResult> =>
  withCredentials(op, remote, (body) => api.sync(pid(), op, body));

function describe(result: SyncResult): string {
  if ('outcome' in result) {
    if (result.outcome === 'conflicts') return `Pulled with conflicts in ${result.conflicts.length} file(s)`;
    return result.outcome === 'up_to_date' ? 'Already up to date' : `Pulled ${result.branch}`;
  }
  if ('updated' in result) return result.updated.length ? `Fetched ${result.updated.length} ref(s)` : 'Nothing new to fetch';
  return `Pushed ${result.branch} to ${result.remote}`;
}

/** "origin" when there is one, else the first remote; null when the repository has none. */
async function defaultRemote(): Promise<string | null> {
  const list = await api.listRemotes(pid());
  return (list.find((r) => r.name === 'origin') ?? list[0])?.name ?? null;
}

/** Fetch, pull or push with the default remote; without a remote, the remotes dialog opens. */
export async function syncOp(op: SyncOp): Promise<void> {
  const remote = await defaultRemote().catch((err: unknown) => void report(err, `${op} failed`));
  if (remote === null) showRemotes();
  if (!remote) return;
  const result = await run(SYNC_LABELS[op], `${op} failed`, () => withIdentity(() => syncWithPrompt(op, remote)));
  if (result) notify(describe(result), 'info');
}

export async function stashPush(): Promise<void> {
  const answer = await askStash();
  if (!answer) return;
  await run('Stashing…', 'Cannot stash', () => withIdentity(() => api.pushStash(pid(), answer.message, answer.includeUntracked)));
}

export const stashApply = (index: number, pop: boolean) =>
  run(pop ? 'Popping stash…' : 'Applying stash…', 'The stash was kept', () => api.applyStash(pid(), index, pop));

export async function stashDrop(index: number, message: string): Promise<void> {
  const answer = await confirmDialog('Drop this stash?', `"${message}" will be deleted.`, { confirm: 'Drop', danger: true });
  if (answer.ok) await run('Dropping stash…', 'Cannot drop the stash', () => api.dropStash(pid(), index));
}

/** ``git merge <name>`` into the current branch; conflicts open the merge editor on the first
 * file and leave git's default message in the commit box for the merge commit. */
export async function mergeBranch(name: string): Promise<void> {
  const into = status.value?.branch ?? 'the current branch';
  const result = await run(`Merging ${name}…`, `Cannot merge ${name}`, () => withIdentity(() => api.merge(pid(), name)));
  if (!result) return;
  if (result.outcome === 'conflicts') {
    draftMessage.value = result.message;
    notify(`Merging ${name} stopped on conflicts in ${result.conflicts.length} file(s): resolve them, then commit`);
    if (result.conflicts[0]) openMerge(result.conflicts[0]);
    return;
  }
  const what = { up_to_date: 'Already up to date', fast_forward: `Fast-forwarded ${into} to ${name}`, merged: `Merged ${name} into ${into}` };
  notify(what[result.outcome], 'info');
}

/** Cherry-picks (or reverts) one commit onto HEAD; conflicts open the merge editor, with the
 * commit's message waiting in the commit box. */
export async function pickCommit(sha: string, revert: boolean): Promise<void> {
  const short = sha.slice(0, 7);
  const result = await run(revert ? `Reverting ${short}…` : `Cherry-picking ${short}…`, revert ? `Cannot revert ${short}` : `Cannot cherry-pick ${short}`,
    () => withIdentity(() => api.pickCommit(pid(), sha, revert)));
  if (!result) return;
  if (result.outcome === 'conflicts') {
    draftMessage.value = result.message.trimEnd();
    notify(`${revert ? 'Reverting' : 'Cherry-picking'} ${short} stopped on conflicts in ${result.conflicts.length} file(s): resolve them, then commit`);
    if (result.conflicts[0]) openMerge(result.conflicts[0]);
    return;
  }
  notify(`${revert ? 'Reverted' : 'Cherry-picked'} ${short} as ${result.commit?.slice(0, 7)}`, 'info');
}

/** A lightweight tag at a commit (HEAD when null), named by the person. */
export async function createTag(target: string | null): Promise<void> {
  const name = await promptDialog('Create tag', `Tag name (at ${target ? target.slice(0, 7) : 'HEAD'})`, '', 'Create');
  if (!name) return;
  const made = await run('Tagging…', 'Cannot create the tag', () => api.createTag(pid(), name.trim(), target));
  if (made) notify(`Tagged ${made.commit?.slice(0, 7) ?? ''} as ${made.name}`, 'info');
}

export async function deleteTag(name: string): Promise<void> {
  const answer = await confirmDialog(`Delete tag ${name}?`, `The tag ${name} will be deleted here (not on any remote).`, {
    confirm: 'Delete',
    danger: true,
  });
  if (answer.ok) await run(`Deleting ${name}…`, `Cannot delete ${name}`, () => api.deleteTag(pid(), name));
}

/** Pushes one tag to the default remote (the remotes dialog opens when there is none). */
export async function pushTag(name: string): Promise<void> {
  const remote = await defaultRemote().catch((err: unknown) => void report(err, 'push failed'));
  if (remote === null) showRemotes();
  if (!remote) return;
  const result = await run(`Pushing ${name}…`, `Cannot push ${name}`, () => withCredentials('push', remote, (body) => api.pushTag(pid(), name, body)));
  if (result) notify(`Pushed tag ${result.tag} to ${result.remote}`, 'info');
}
