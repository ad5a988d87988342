// The flow of the project, data to device: a panel in the main area (its code loads on first
// show), opened by the title bar's rocket button and "Show Flow" in the command palette.
import { registerCommand } from '../../kernel/commands';
import { lazyPanel } from '../../kernel/lazyPanel';
import { registerPanel, registerTitleAction } from '../../kernel/panels';
import { FLOW_PANEL, openFlow } from './open';

export function registerFlowFeature(): void {
  registerPanel(FLOW_PANEL, lazyPanel(() => import('./FlowPanel').then((m) => m.flowPanel)), { area: 'main' });
  registerTitleAction({ id: 'flow', label: 'Flow', glyph: '⇉', icon: 'rocket', run: openFlow });
  registerCommand({ id: 'flow', label: 'Show Flow', category: 'View', run: openFlow });
}
