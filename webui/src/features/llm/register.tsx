// MNN-LLM: the per-folder panel (export, chat, benchmark) and its context-menu entry.
import { registerFileMenuItems } from '../../kernel/fileMenu';
import { lazyPanel } from '../../kernel/lazyPanel';
import { registerPanel } from '../../kernel/panels';
import { LLM_PANEL } from './open';
import { llmMenuItems } from './menu';

export function registerLlmFeature(): void {
  registerFileMenuItems(40, llmMenuItems);
  registerPanel(LLM_PANEL, lazyPanel(() => import('./LlmPanel').then((m) => m.llmPanel)), { area: 'main' });
}
