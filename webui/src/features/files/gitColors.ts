// The Git state of each path in the tree, as VS Code colours names: conflicted, modified, added,
// untracked, deleted; a folder takes the colour of the changes inside it.
import { computed } from '@preact/signals';
import type { GitFileChange } from '../../api/git';
import { status } from '../../kernel/gitStore';
import { parentOf } from '../../kernel/treeStore';

export type GitMark = 'conflicted' | 'modified' | 'added' | 'untracked' | 'deleted';

// Stronger marks win when a path (or a folder's content) has several.
const RANK: GitMark[] = ['conflicted', 'modified', 'deleted', 'added', 'untracked'];

function mark(change: GitFileChange, group: 'staged' | 'unstaged' | 'untracked' | 'conflicted'): GitMark {
  if (group === 'conflicted' || group === 'untracked') return group;
  if (change.kind === 'added') return 'added';
  return change.kind === 'deleted' ? 'deleted' : 'modified';
}

function put(marks: Map<string, GitMark>, path: string, next: GitMark): void {
  const now = marks.get(path);
  if (!now || RANK.indexOf(next) < RANK.indexOf(now)) marks.set(path, next);
}

export const gitMarks = computed<ReadonlyMap<string, GitMark>>(() => {
  const marks = new Map<string, GitMark>();
  const current = status.value;
  if (!current) return marks;
  for (const group of ['untracked', 'staged', 'unstaged', 'conflicted'] as const) {
    for (const change of current[group]) {
      const path = change.path.replace(/\/$/, '');
      const value = mark(change, group);
      put(marks, path, value);
      for (let dir = parentOf(path); dir; dir = parentOf(dir)) put(marks, dir, value);
    }
  }
  return marks;
});
