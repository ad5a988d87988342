// The market as a project's dock panel: "Add to this project" installs here.
import type { PanelFactory } from '../workbench/panels';
import { pid } from '../workbench/session';
import { MarketBrowser } from './MarketBrowser';

export const marketPanel: PanelFactory = () => (
  <div class="market-panel" data-testid="market-panel"><MarketBrowser projectId={pid()} /></div>
);
