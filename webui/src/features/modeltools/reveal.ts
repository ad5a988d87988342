// Shows a file in the tree: its folders expanded, the row selected and scrolled into view.
import { parentOf, selected, setExpanded } from '../../kernel/treeStore';

export function revealInTree(path: string): void {
  for (let dir = parentOf(path); dir; dir = parentOf(dir)) setExpanded(dir, true);
  selected.value = path;
  requestAnimationFrame(() => {
    document.querySelector(`[data-testid=tree-item][data-path="${CSS.escape(path)}"]`)?.scrollIntoView({ block: 'nearest' });
  });
}
