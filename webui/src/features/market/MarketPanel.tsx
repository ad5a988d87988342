// The market as a project's dock panel: "Add to this project" installs here.
import type { PanelFactory } from '../../kernel/panels';
import { pid } from '../../kernel/session';
import { MarketBrowser } from './MarketBrowser';

export const marketPanel: PanelFactory = () => (
  <div class="market-panel" data-testid="market-panel"><MarketBrowser projectId={pid()} /></div>
);
