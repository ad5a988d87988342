// The Training feature: its dock panel, its title-bar button and the job events it follows.
import { registerPanel, registerTitleAction } from '../workbench/panels';
import { openTraining, TRAINING_PANEL } from './open';
import { wireJobEvents } from './store';
import { TrainingPanel } from './TrainingPanel';
import './training.css';

export function registerTrainingFeature(): void {
  registerPanel(TRAINING_PANEL, () => <TrainingPanel />);
  registerTitleAction({ id: 'training', label: 'Training', glyph: '▶', run: openTraining });
  wireJobEvents();
}
