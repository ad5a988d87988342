// "MNN-LLM…" on a folder: export a Hugging Face-format folder, or chat with an exported one.
import type { FileEntry } from '../../api/types';
import type { MenuItem } from '../../ui/contextMenu';
import { isViewer } from '../../kernel/account';
import { openLlm } from './open';

export function llmMenuItems(entry: FileEntry): MenuItem[] {
  if (entry.type !== 'dir' || isViewer.value) return [];
  return [{ label: 'MNN-LLM: export, chat, benchmark…', testid: 'menu-llm', action: () => openLlm(entry.path) }];
}
