// Where the Git panels open: Source Control under the file tree, so both stay in view while
// editing; diffs and history in the editor area.
import { signal } from '@preact/signals';
import type { AddPanelPositionOptions } from 'dockview';
import { FILES_PANEL } from '../../kernel/editorPanels';
import { mainGroup } from '../../kernel/areas';
import { dock, showPanel } from '../../kernel/panels';

export const SCM_PANEL = 'git';
export const DIFF_PANEL = 'git-diff';
export const HISTORY_PANEL = 'git-history';
export const MERGE_PANEL = 'git-merge';
export const BLAME_PANEL = 'git-blame';

function sidePosition(): AddPanelPositionOptions | undefined {
  const api = dock();
  if (api.getPanel(FILES_PANEL)) return { referencePanel: FILES_PANEL, direction: 'below' };
  const first = api.groups[0];
  return first ? { referenceGroup: first, direction: 'left' } : undefined;
}

const editorAreaPosition = (): AddPanelPositionOptions => ({ referenceGroup: mainGroup() });

export function openSourceControl(): void {
  const api = dock();
  showPanel({
    id: SCM_PANEL,
    component: SCM_PANEL,
    title: 'Source Control',
    position: api.getPanel(SCM_PANEL) ? undefined : sidePosition(),
  });
}

export interface DiffTarget {
  path: string;
  /** Index vs HEAD when true, work tree vs index otherwise; ignored when `sha` is set. */
  staged?: boolean;
  /** A commit: the file in it against its first parent. */
  sha?: string;
}

const diffId = (t: DiffTarget) => `diff:${t.sha ? t.sha.slice(0, 12) : t.staged ? 'staged' : 'work'}:${t.path}`;

function diffTitle(t: DiffTarget): string {
  const name = t.path.slice(t.path.lastIndexOf('/') + 1);
  if (t.sha) return `${name} (${t.sha.slice(0, 7)})`;
  return `${name} (${t.staged ? 'Index' : 'Working Tree'})`;
}

export function openDiff(target: DiffTarget): void {
  const id = diffId(target);
  showPanel({
    id,
    component: DIFF_PANEL,
    title: diffTitle(target),
    params: { ...target },
    position: dock().getPanel(id) ? undefined : editorAreaPosition(),
  });
}

/** Who last changed each line of a file, as of HEAD. */
export function openBlame(path: string): void {
  const id = `blame:${path}`;
  showPanel({
    id,
    component: BLAME_PANEL,
    title: `${path.slice(path.lastIndexOf('/') + 1)} (Blame)`,
    params: { path },
    position: dock().getPanel(id) ? undefined : editorAreaPosition(),
  });
}

/** The 3-way merge editor of a conflicted file. */
export function openMerge(path: string): void {
  const id = `merge:${path}`;
  showPanel({
    id,
    component: MERGE_PANEL,
    title: `${path.slice(path.lastIndexOf('/') + 1)} (Merge)`,
    params: { path },
    position: dock().getPanel(id) ? undefined : editorAreaPosition(),
  });
}

/** The commit the History shows the files of, when something else (a lineage graph) picks it. */
export const historyCommit = signal<string | null>(null);

export function openCommit(sha: string): void {
  historyCommit.value = sha;
  openHistory();
}

export function openHistory(): void {
  showPanel({
    id: HISTORY_PANEL,
    component: HISTORY_PANEL,
    title: 'History',
    position: dock().getPanel(HISTORY_PANEL) ? undefined : editorAreaPosition(),
  });
}
