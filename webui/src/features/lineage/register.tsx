// The lineage graph of a file, as a dock panel in the main area (its code loads on first show).
import { registerFileMenuItems } from '../../kernel/fileMenu';
import { lazyPanel } from '../../kernel/lazyPanel';
import { registerPanel } from '../../kernel/panels';
import { LINEAGE_PANEL } from './open';
import { lineageMenuItems } from './menu';

export function registerLineageFeature(): void {
  registerFileMenuItems(20, lineageMenuItems);
  registerPanel(LINEAGE_PANEL, lazyPanel(() => import('./LineagePanel').then((m) => m.lineagePanel)), { area: 'main' });
}
