// Keyboard shortcuts: the Keyboard Shortcuts editor (Ctrl+K Ctrl+S) and the workbench's own
// commands VS Code has keys for: the side bar (Ctrl+B), the panel (Ctrl+J), the recently used
// editors (Ctrl+Tab), save and close. The dispatcher itself starts before every feature
// (installKeybindings, called by workbench/mountWorkbench.tsx).
import { render } from 'preact';
import { getDoc, saveWithNotice } from '../../kernel/editor';
import { opener } from '../../kernel/openers';
import { registerCommand, runCommand } from '../../kernel/commands';
import { activePath } from '../../kernel/active';
import { mainGroup } from '../../kernel/areas';
import { lazyPanel } from '../../kernel/lazyPanel';
import { dock, dockReady, registerPanel, showPanel } from '../../kernel/panels';
import { pendingChord } from './dispatcher';
import { formatKey } from '../../kernel/keys';
import { cycleEditors, switching, trackRecentEditors } from './recentEditors';
import { loadHiddenBars, toggleBar } from './views';
import './keybindings.css';

export const KEYBINDINGS_PANEL = 'keybindings';

export function openShortcutsEditor(): void {
  const exists = Boolean(dock().getPanel(KEYBINDINGS_PANEL));
  showPanel({
    id: KEYBINDINGS_PANEL, component: KEYBINDINGS_PANEL, title: 'Keyboard Shortcuts',
    position: exists ? undefined : { referenceGroup: mainGroup() },
  });
}

function closeEditor(): void {
  const panel = dock().activePanel;
  if (panel && panel.id.startsWith('editor:')) panel.api.close();
}

function saveActive(): void {
  const doc = activePath.value ? getDoc(activePath.value) : undefined;
  if (doc) saveWithNotice(doc);
}

function KeysHost() {
  const chord = pendingChord.value;
  const list = switching.value;
  return (
    <>
      {chord && (
        <div class="kb-chord" data-testid="chord-pending" role="status">
          ({formatKey(chord)}) was pressed. Waiting for the second key of the chord…
        </div>
      )}
      {list && (
        <div class="kb-switcher" data-testid="editor-switcher">
          <ul role="listbox">
            {list.items.map((item, i) => (
              <li key={item.id} role="option" aria-selected={i === list.index} data-testid="editor-switcher-item">{item.title}</li>
            ))}
          </ul>
        </div>
      )}
    </>
  );
}

export function registerKeybindingsFeature(): void {
  registerPanel(KEYBINDINGS_PANEL, lazyPanel(() => import('./ShortcutsEditor').then((m) => () => <m.ShortcutsEditor />)), { area: 'main' });
  const host = document.createElement('div');
  document.body.append(host);
  render(<KeysHost />, host);
  void loadHiddenBars();
  const stop = dockReady.subscribe((ready) => {
    if (!ready) return;
    trackRecentEditors(dock());
    queueMicrotask(() => stop());
  });
  const view = 'View';
  registerCommand({ id: 'keybindings.open', label: 'Keyboard shortcuts', category: 'Preferences', shortcut: 'Ctrl+K Ctrl+S', run: openShortcutsEditor });
  registerCommand({ id: 'view.toggle-sidebar', label: 'Toggle side bar', category: view, shortcut: 'Ctrl+B', run: () => toggleBar('side', () => runCommand('files')) });
  registerCommand({ id: 'view.toggle-panel', label: 'Toggle panel', category: view, shortcut: 'Ctrl+J',
    run: () => toggleBar('bottom', () => runCommand('problems') || opener('repl')()) });
  registerCommand({ id: 'editor.next-recent', label: 'Open next recently used editor', category: view, shortcut: 'Ctrl+Tab', run: () => cycleEditors(1) });
  registerCommand({ id: 'editor.previous-recent', label: 'Open previous recently used editor', category: view, shortcut: 'Ctrl+Shift+Tab', run: () => cycleEditors(-1) });
  registerCommand({ id: 'editor.close', label: 'Close editor', category: view, run: closeEditor });
  registerCommand({ id: 'file.save', label: 'Save', category: 'File', shortcut: 'Ctrl+S', ownKey: true, run: saveActive });
}
