// The Source Control panel's actions as palette commands (its toolbar and its ⋯ menu).
import { notify } from '../../ui/toast';
import { registerCommand } from '../../kernel/commands';
import { isViewer } from '../../kernel/account';
import { activePath } from '../../kernel/active';
import { promptDialog } from '../../ui/dialogs';
import { createTag, mergeBranch, stashPush, syncOp } from './actions';
import { askIdentity, showRemotes } from './dialogs';
import { openBlame, openHistory, openSourceControl } from './open';
import { busy, refresh, repoState } from '../../kernel/gitStore';

const ready = () => repoState.value === 'ready';
const canWrite = () => ready() && !isViewer.value && busy.value === null;

function focusMessage(): void {
  openSourceControl();
  requestAnimationFrame(() => document.querySelector<HTMLTextAreaElement>('[data-testid=scm-message]')?.focus());
}

function blameActive(): void {
  const path = activePath.value;
  if (path) openBlame(path);
  else notify('Open a file first: blame shows who last changed each of its lines.');
}

export async function askMerge(): Promise<void> {
  const name = await promptDialog('Merge', 'Branch, remote branch, tag or commit to merge into the current branch', '', 'Merge');
  if (name?.trim()) await mergeBranch(name.trim());
}

export function registerGitCommands(): void {
  const category = 'Git';
  registerCommand({ id: 'git.commit', label: 'Write the commit message', category, enabled: canWrite, run: focusMessage });
  registerCommand({ id: 'git.history', label: 'Show history', category, enabled: ready, run: openHistory });
  registerCommand({ id: 'git.pull', label: 'Pull', category, enabled: canWrite, run: () => void syncOp('pull') });
  registerCommand({ id: 'git.push', label: 'Push', category, enabled: canWrite, run: () => void syncOp('push') });
  registerCommand({ id: 'git.fetch', label: 'Fetch', category, enabled: canWrite, run: () => void syncOp('fetch') });
  registerCommand({ id: 'git.merge', label: 'Merge a branch into the current one…', category, enabled: canWrite, run: () => void askMerge() });
  registerCommand({ id: 'git.tag', label: 'Create tag at HEAD…', category, enabled: canWrite, run: () => void createTag(null) });
  registerCommand({ id: 'git.remotes', label: 'Remotes…', category, enabled: () => ready() && !isViewer.value, run: showRemotes });
  registerCommand({ id: 'git.stash', label: 'Stash changes…', category, enabled: canWrite, run: () => void stashPush() });
  registerCommand({ id: 'git.identity', label: 'Your identity…', category, run: () => void askIdentity() });
  registerCommand({ id: 'git.blame', label: 'Blame the active file', category, enabled: ready, run: blameActive });
  registerCommand({ id: 'git.refresh', label: 'Refresh', category, run: () => void refresh() });
}
