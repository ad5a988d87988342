// "Lineage" in the file tree's context menu, for model files.
import type { FileEntry } from '../../api/types';
import type { MenuItem } from '../../ui/contextMenu';
import { isModelFile } from '../../kernel/fileKinds';
import { openLineage } from './open';

export function lineageMenuItems(entry: FileEntry): MenuItem[] {
  if (entry.type !== 'file' || !isModelFile(entry.path)) return [];
  return [{ label: 'Lineage', testid: 'menu-lineage', action: () => openLineage(entry.path) }];
}
