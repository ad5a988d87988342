// Preview editors, as in VS Code: a file opened for a look (one click or Enter in the tree, quick
// open, a search result, the Git changes list) takes its group's preview tab, which the next file
// opened so replaces. Typing in it, saving it or a double click (on the tab or the tree row) keeps
// it. The flag is the panel's `preview` parameter, saved with the layout: a reload restores it.
import { signal } from '@preact/signals';
import type { DockviewGroupPanel, IDockviewPanel } from 'dockview';
import { registerCommand } from '../../kernel/commands';
import { dock } from '../../kernel/panels';
import { loadUiState, registerStateSection, scheduleSave } from '../../kernel/uiState';
import { getDoc } from './documents';
import { editedEarly } from './EarlyEditor';
import { editorPanelId } from '../../kernel/editorPanels';

/** Off: every file opens in a tab of its own (the palette's "Toggle preview editors"). */
export const previewEnabled = signal(true);

export const isPreview = (panel: IDockviewPanel): boolean => panel.params?.preview === true;

const isClean = (path: string): boolean => (getDoc(path)?.state.value ?? 'clean') === 'clean' && !editedEarly(path);

/** The group's preview tab that a new preview may replace: never one with unsaved text. */
export function replaceablePreview(group: DockviewGroupPanel): IDockviewPanel | undefined {
  return group.panels.find((p) => isPreview(p) && isClean(String(p.params?.path)));
}

/** Makes a preview tab a normal one. */
export function keepPanel(panel: IDockviewPanel): void {
  if (!isPreview(panel)) return;
  panel.api.updateParameters({ preview: undefined });
  scheduleSave(dock());
}

function togglePreview(): void {
  previewEnabled.value = !previewEnabled.value;
  if (!previewEnabled.value) dock().panels.forEach(keepPanel);
  scheduleSave(dock());
}

/** The setting is kept in the project's UI state, beside the layout. */
export async function registerPreviewEditors(): Promise<void> {
  registerCommand({ id: 'editor.toggle-preview', label: 'Toggle preview editors', category: 'View', run: togglePreview });
  registerStateSection('previewEditors', () => previewEnabled.value);
  const saved = ((await loadUiState()) as { previewEditors?: unknown }).previewEditors;
  if (typeof saved === 'boolean') previewEnabled.value = saved;
}

export function keepEditorOf(path: string): void {
  const panel = dock().getPanel(editorPanelId(path));
  if (panel) keepPanel(panel);
}
