// The one-letter state badges of changed files, as in git's short status.
import type { ChangeKind } from '../../api/git';

export type GroupId = 'staged' | 'unstaged' | 'untracked' | 'conflicted';

const KIND: Record<ChangeKind, { letter: string; label: string }> = {
  added: { letter: 'A', label: 'Added' },
  modified: { letter: 'M', label: 'Modified' },
  deleted: { letter: 'D', label: 'Deleted' },
  renamed: { letter: 'R', label: 'Renamed' },
  typechange: { letter: 'T', label: 'Type changed' },
};

export function badgeFor(group: GroupId, kind: ChangeKind): { letter: string; label: string } {
  if (group === 'untracked') return { letter: 'U', label: 'Untracked' };
  if (group === 'conflicted') return { letter: 'C', label: 'Conflicted' };
  return KIND[kind];
}
