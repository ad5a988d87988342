// The Git flow's dock panels, its title-bar button and its keyboard shortcut.
import { registerPanel, registerTitleAction } from '../workbench/panels';
import { DiffPanel } from './DiffPanel';
import { HistoryPanel } from './HistoryPanel';
import { BlamePanel } from './BlamePanel';
import { MergePanel } from './MergePanel';
import { BLAME_PANEL, DIFF_PANEL, HISTORY_PANEL, MERGE_PANEL, openSourceControl, SCM_PANEL } from './open';
import { SourceControlPanel } from './SourceControlPanel';
import './git.css';

function onShortcut(ev: KeyboardEvent): void {
  if ((ev.ctrlKey || ev.metaKey) && ev.shiftKey && ev.key.toLowerCase() === 'g') {
    ev.preventDefault();
    openSourceControl();
  }
}

export function registerGitFeature(): void {
  registerPanel(SCM_PANEL, () => <SourceControlPanel />);
  registerPanel(DIFF_PANEL, (props) => <DiffPanel {...props} />, { area: 'main' });
  registerPanel(HISTORY_PANEL, () => <HistoryPanel />, { area: 'main' });
  registerPanel(MERGE_PANEL, (props) => <MergePanel {...props} />, { area: 'main' });
  registerPanel(BLAME_PANEL, (props) => <BlamePanel {...props} />, { area: 'main' });
  registerTitleAction({ id: 'git', label: 'Source Control (Ctrl+Shift+G)', glyph: '⎇', run: openSourceControl });
  window.addEventListener('keydown', onShortcut);
}
