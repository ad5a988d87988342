// The model tools: a dock panel per tool run, the run history panel and its title-bar button, a
// model's summary in its editor tab, the `tools` events, and the tool named in the page's URL (a
// tool opened in a new tab).
import { registerFileMenuItems } from '../../kernel/fileMenu';
import { registerBinaryDiffView, registerBinaryView } from '../../kernel/fileViews';
import { lazyPanel } from '../../kernel/lazyPanel';
import { registerPanel, registerTitleAction } from '../../kernel/panels';
import { DIFF_PANEL } from './diff/openDiff';
import { openFromQuery, openRuns, PIPELINE_PANEL, RUNS_PANEL, TOOL_PANEL } from './open';
import { wireToolEvents } from './store';
import { isModelFile, modelMenuItems } from './menu';
import { ModelDiffSummary } from './ModelDiffSummary';
import { registerOpener } from '../../kernel/openers';
import { openModelDiff } from './diff/openDiff';

export function registerModelToolsFeature(): void {
  registerOpener('modelDiff', openModelDiff);
  registerFileMenuItems(10, modelMenuItems);
  // A model opened in the editor area shows its summary; its code (the tool views) loads on first use.
  registerBinaryView(isModelFile, lazyPanel(() => import('./ModelView').then((m) => m.modelView)));
  registerBinaryDiffView(ModelDiffSummary);
  // Charts and result views load with the first tool panel, not with the project page.
  registerPanel(TOOL_PANEL, lazyPanel(() => import('./lazy').then((m) => m.toolPanel)), { area: 'main' });
  registerPanel(RUNS_PANEL, lazyPanel(() => import('./lazy').then((m) => m.runsPanel)), { area: 'main' });
  registerPanel(PIPELINE_PANEL, lazyPanel(() => import('./lazy').then((m) => m.pipelinePanel)), { area: 'main' });
  registerPanel(DIFF_PANEL, lazyPanel(() => import('./lazy').then((m) => m.diffPanel)), { area: 'main' });
  registerTitleAction({ id: 'tool-runs', label: 'Tool runs', glyph: '⚙', icon: 'tools', run: openRuns });
  wireToolEvents();
  openFromQuery();
}
