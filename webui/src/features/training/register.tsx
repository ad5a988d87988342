// The Training feature: its dock panel, its title-bar button and the job events it follows.
import { lazyPanel } from '../workbench/lazyPanel';
import { registerPanel, registerTitleAction } from '../workbench/panels';
import { openTraining, TRAINING_PANEL } from './open';
import { wireJobEvents } from './store';
import './training.css';

export function registerTrainingFeature(): void {
  // Its log terminal (xterm) and charts load the first time the panel is shown.
  registerPanel(TRAINING_PANEL, lazyPanel(() => import('./TrainingPanel').then((m) => () => <m.TrainingPanel />)));
  registerTitleAction({ id: 'training', label: 'Training', glyph: '▶', run: openTraining });
  wireJobEvents();
}
