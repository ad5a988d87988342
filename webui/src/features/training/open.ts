// Where the Training panel opens: below the editor area, across its width, like an IDE's bottom
// panel, so code and a running job stay in view together.
import type { AddPanelPositionOptions } from 'dockview';
import { dock, showPanel } from '../../kernel/panels';

export const TRAINING_PANEL = 'training';

const PANEL_HEIGHT_SHARE = 0.5;

/** The editor area is the widest group; side panels (files, source control) are narrow. */
function belowEditorArea(): AddPanelPositionOptions {
  const groups = dock().groups;
  if (!groups.length) return { direction: 'below' };
  const area = groups.reduce((widest, g) => (g.width > widest.width ? g : widest));
  return { referenceGroup: area, direction: 'below' };
}

export function openTraining(): void {
  const api = dock();
  const exists = Boolean(api.getPanel(TRAINING_PANEL));
  showPanel({
    id: TRAINING_PANEL,
    component: TRAINING_PANEL,
    title: 'Training',
    position: exists ? undefined : belowEditorArea(),
    initialHeight: exists ? undefined : Math.round(api.height * PANEL_HEIGHT_SHARE),
  });
}
