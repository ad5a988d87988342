// The Training feature: its dock panel, its title-bar button, its palette commands and the job
// events it follows.
import { registerCommand } from '../../kernel/commands';
import { isViewer } from '../../kernel/account';
import { lazyPanel } from '../../kernel/lazyPanel';
import { registerPanel, registerTitleAction } from '../../kernel/panels';
import { openDialog, type TrainingDialog } from './dialogState';
import { openTraining, TRAINING_PANEL } from './open';
import { loadJobs, selectedId, wireJobEvents } from './store';
import './training.css';
import { registerOpener } from '../../kernel/openers';

export function registerTrainingFeature(): void {
  registerOpener('training', openTraining);
  registerOpener('trainingJob', (jobId) => {
    selectedId.value = jobId;
    openTraining();
  });
  // Its log terminal (xterm) and charts load the first time the panel is shown.
  registerPanel(TRAINING_PANEL, lazyPanel(() => import('./TrainingPanel').then((m) => () => <m.TrainingPanel />)));
  registerTitleAction({ id: 'training', label: 'Training', glyph: '▶', icon: 'play', run: openTraining });
  const dialog = (which: TrainingDialog) => () => {
    openTraining();
    openDialog.value = which;
  };
  const category = 'Training';
  const editor = () => !isViewer.value;
  registerCommand({ id: 'training.new-job', label: 'New job…', category, enabled: editor, run: dialog('new-job') });
  registerCommand({ id: 'training.new-sweep', label: 'New sweep…', category, enabled: editor, run: dialog('sweep') });
  registerCommand({ id: 'training.interpreter', label: 'Interpreter…', category, enabled: editor, run: dialog('interpreter') });
  registerCommand({ id: 'training.pai-settings', label: 'PAI-DLC settings…', category, enabled: editor, run: dialog('pai-settings') });
  registerCommand({ id: 'training.ray-settings', label: 'Ray settings…', category, enabled: editor, run: dialog('ray-settings') });
  registerCommand({ id: 'training.refresh', label: 'Refresh jobs', category, run: () => void loadJobs() });
  wireJobEvents();
}
