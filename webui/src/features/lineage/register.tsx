// The lineage graph of a file, as a dock panel in the main area (its code loads on first show).
import { registerFileMenuItems } from '../../kernel/fileMenu';
import { lazyPanel } from '../../kernel/lazyPanel';
import { registerPanel } from '../../kernel/panels';
import { LINEAGE_PANEL } from './open';
import { lineageMenuItems } from './menu';
import { registerOpener } from '../../kernel/openers';
import { openLineage } from './open';

export function registerLineageFeature(): void {
  registerOpener('lineage', openLineage);
  registerFileMenuItems(20, lineageMenuItems);
  registerPanel(LINEAGE_PANEL, lazyPanel(() => import('./LineagePanel').then((m) => m.lineagePanel)), { area: 'main' });
}
