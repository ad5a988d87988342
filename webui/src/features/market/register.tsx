// The market in a project: a dock panel in the main area, opened from the title bar.
import { mainGroup } from '../../kernel/areas';
import { registerFileMenuItems } from '../../kernel/fileMenu';
import { lazyPanel } from '../../kernel/lazyPanel';
import { dock, registerPanel, registerTitleAction, showPanel } from '../../kernel/panels';
import { publishMenuItems } from './menu';

export const MARKET_PANEL = 'market';

export function openMarket(): void {
  showPanel({
    id: MARKET_PANEL,
    component: MARKET_PANEL,
    title: 'Market',
    position: dock().getPanel(MARKET_PANEL) ? undefined : { referenceGroup: mainGroup() },
  });
}

export function registerMarketFeature(): void {
  registerFileMenuItems(30, publishMenuItems);
  registerPanel(MARKET_PANEL, lazyPanel(() => import('./MarketPanel').then((m) => m.marketPanel)), { area: 'main' });
  // Ctrl+Shift+X: VS Code's Extensions view; the market is where this workbench's add-ons come from.
  registerTitleAction({ id: 'market', label: 'Market', shortcut: 'Ctrl+Shift+X', glyph: '◈', icon: 'extensions', run: openMarket });
}
