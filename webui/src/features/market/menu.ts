// "Publish…" in the file tree's context menu: model files, for those who may change the project.
import type { FileEntry } from '../../api/types';
import type { MenuItem } from '../../ui/contextMenu';
import { isModelFile } from '../../kernel/fileKinds';
import { isViewer } from '../../kernel/account';

export function publishMenuItems(entry: FileEntry): MenuItem[] {
  if (entry.type !== 'file' || !isModelFile(entry.path) || isViewer.value) return [];
  const publish = () => void import('./PublishDialog').then((m) => m.openPublish(entry.path));
  return [{ label: 'Publish…', testid: 'menu-publish', action: publish }];
}
