// Every feature that brings dock panels or title-bar actions registers itself here, one line
// each, and the status bar's items of the features are placed here; the shell runs these before
// it restores the saved layout.
import { registerGitFeature } from '../features/git/register';
import { registerModelToolsFeature } from '../features/modeltools/register';
import { registerTrainingFeature } from '../features/training/register';
import { registerQuickOpen } from '../features/quickopen/QuickOpen';
import { registerDebugFeature } from '../features/debug/register';
import { registerDevicesFeature } from '../features/devices/register';
import { registerTeamFeature } from '../features/team/register';
import { registerPreviewFeature } from '../features/preview/register';
import { registerTerminalFeature } from '../features/terminal/register';
import { registerSearchFeature } from '../features/search/register';
import { registerPalette } from '../features/palette/Palette';
import { registerLanguageFeatures } from '../features/lsp/register';
import { registerLlmFeature } from '../features/llm/register';
import { registerLineageFeature } from '../features/lineage/register';
import { registerMarketFeature } from '../features/market/register';
import { registerDatasetsFeature } from '../features/datasets/register';
import { registerKeybindingsFeature } from '../features/keybindings/register';
import { registerPlaygroundFeature } from '../features/playground/register';
import { registerFlowFeature } from '../features/flow/register';
import { BranchSwitcher } from '../features/git/BranchSwitcher';
import { ProblemCounts } from '../features/lsp/ProblemsPanel';
import { RefusalStatus } from '../features/lsp/RefusalStatus';
import { TeamStatus } from '../features/team/TeamStatus';
import { registerStatusItem } from '../kernel/statusBar';
import { registerBuiltinPanels } from './builtinPanels';

/** The features' items in the status bar (features/status/StatusBar.tsx), in their places. */
function registerStatusItems(): void {
  registerStatusItem('git-branch', 'after-connection', BranchSwitcher);
  registerStatusItem('lsp-problems', 'after-save', ProblemCounts);
  registerStatusItem('lsp-refusal', 'before-version', RefusalStatus);
  registerStatusItem('team', 'before-version', TeamStatus);
}

export const FEATURES: (() => void)[] = [registerBuiltinPanels, registerStatusItems, registerQuickOpen, registerGitFeature, registerTrainingFeature, registerModelToolsFeature, registerDevicesFeature, registerDebugFeature, registerTeamFeature, registerPreviewFeature, registerTerminalFeature, registerSearchFeature, registerPalette, registerLanguageFeatures, registerLlmFeature, registerLineageFeature, registerMarketFeature, registerDatasetsFeature, registerKeybindingsFeature, registerPlaygroundFeature, registerFlowFeature];
