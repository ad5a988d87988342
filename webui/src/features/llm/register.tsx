// MNN-LLM: the per-folder panel (export, chat, benchmark) and its context-menu entry.
import { lazyPanel } from '../../kernel/lazyPanel';
import { registerPanel } from '../../kernel/panels';
import { LLM_PANEL } from './open';

export function registerLlmFeature(): void {
  registerPanel(LLM_PANEL, lazyPanel(() => import('./LlmPanel').then((m) => m.llmPanel)), { area: 'main' });
}
