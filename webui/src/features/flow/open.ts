// Where the Flow panel opens: one panel, in the main area.
import { mainGroup } from '../../kernel/areas';
import { dock, showPanel } from '../../kernel/panels';

export const FLOW_PANEL = 'flow';

export function openFlow(): void {
  showPanel({
    id: FLOW_PANEL,
    component: FLOW_PANEL,
    title: 'Flow',
    position: dock().getPanel(FLOW_PANEL) ? undefined : { referenceGroup: mainGroup() },
  });
}
