// Datasets: a view of the project's datasets (the title bar's ▦ button, "Datasets" in the command
// palette) and an Evaluate panel per dataset; their code loads on first show. The model tools
// open the Evaluate panel through the openers registered here (kernel/openers.ts).
import { lazyPanel } from '../../kernel/lazyPanel';
import { registerOpener } from '../../kernel/openers';
import { registerPanel, registerTitleAction } from '../../kernel/panels';
import { DATASETS_PANEL, EVALUATE_PANEL, evaluateModel, openDatasets, openEvaluate } from './open';

export function registerDatasetsFeature(): void {
  registerPanel(DATASETS_PANEL, lazyPanel(() => import('./lazy').then((m) => m.datasetsPanel)), { area: 'main' });
  registerPanel(EVALUATE_PANEL, lazyPanel(() => import('./lazy').then((m) => m.evaluatePanel)), { area: 'main' });
  registerOpener('datasets', openDatasets);
  registerOpener('evaluate', openEvaluate);
  registerOpener('evaluateModel', evaluateModel);
  registerTitleAction({ id: 'datasets', label: 'Datasets', glyph: '▦', icon: 'database', run: openDatasets });
}
