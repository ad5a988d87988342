// The Git flow's dock panels, its title-bar button (Ctrl+Shift+G), its palette commands and the
// change markers in every editor.
import { registerEditorExtension } from '../../kernel/editorExtensions';
import { registerPanel, registerTitleAction } from '../../kernel/panels';
import { registerBudgetsEditor } from '../checks/openBudgets';
import { gitGutter } from './gutter';
import { DiffPanel } from './DiffPanel';
import { HistoryPanel } from './HistoryPanel';
import { BlamePanel } from './BlamePanel';
import { registerGitCommands } from './commands';
import { MergePanel } from './MergePanel';
import { BLAME_PANEL, DIFF_PANEL, HISTORY_PANEL, MERGE_PANEL, openSourceControl, SCM_PANEL } from './open';
import { SourceControlPanel } from './SourceControlPanel';
import './git.css';
import { registerOpener } from '../../kernel/openers';
import { openCommit } from './open';

export function registerGitFeature(): void {
  registerOpener('commit', openCommit);
  registerPanel(SCM_PANEL, () => <SourceControlPanel />);
  registerBudgetsEditor();
  registerPanel(DIFF_PANEL, (props) => <DiffPanel {...props} />, { area: 'main' });
  registerPanel(HISTORY_PANEL, () => <HistoryPanel />, { area: 'main' });
  registerPanel(MERGE_PANEL, (props) => <MergePanel {...props} />, { area: 'main' });
  registerPanel(BLAME_PANEL, (props) => <BlamePanel {...props} />, { area: 'main' });
  registerTitleAction({ id: 'git', label: 'Source Control', shortcut: 'Ctrl+Shift+G', glyph: '⎇', icon: 'source-control', run: openSourceControl });
  registerGitCommands();
  registerEditorExtension(gitGutter);
}
