// Every feature that brings dock panels or title-bar actions registers itself here, one line
// each; the shell runs these before it restores the saved layout.
import { registerGitFeature } from '../git/register';
import { registerModelToolsFeature } from '../modeltools/register';
import { registerTrainingFeature } from '../training/register';
import { registerQuickOpen } from '../quickopen/QuickOpen';
import { registerDebugFeature } from '../debug/register';
import { registerDevicesFeature } from '../devices/register';
import { registerTeamFeature } from '../team/register';
import { registerPreviewFeature } from '../preview/register';
import { registerTerminalFeature } from '../terminal/register';
import { registerSearchFeature } from '../search/register';
import { registerPalette } from '../palette/Palette';
import { registerLanguageFeatures } from '../lsp/register';
import { registerLlmFeature } from '../llm/register';
import { registerLineageFeature } from '../lineage/register';
import { registerMarketFeature } from '../market/register';
import { registerDatasetsFeature } from '../datasets/register';
import { registerKeybindingsFeature } from '../keybindings/register';
import { registerPlaygroundFeature } from '../playground/register';
import { registerFlowFeature } from '../flow/register';
import { registerBuiltinPanels } from './builtinPanels';

export const FEATURES: (() => void)[] = [registerBuiltinPanels, registerQuickOpen, registerGitFeature, registerTrainingFeature, registerModelToolsFeature, registerDevicesFeature, registerDebugFeature, registerTeamFeature, registerPreviewFeature, registerTerminalFeature, registerSearchFeature, registerPalette, registerLanguageFeatures, registerLlmFeature, registerLineageFeature, registerMarketFeature, registerDatasetsFeature, registerKeybindingsFeature, registerPlaygroundFeature, registerFlowFeature];
