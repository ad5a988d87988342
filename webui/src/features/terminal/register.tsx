// The integrated terminal: its panel, its shortcut (Ctrl+`) and its commands.
import { registerCommand } from '../palette/commands';
import { lazyPanel } from '../workbench/lazyPanel';
import { registerPanel, registerTitleAction } from '../workbench/panels';
import { openTerminal, TERMINAL_PANEL, toggleTerminal } from './open';
import './terminal.css';

function onKey(ev: KeyboardEvent): void {
  if (!ev.ctrlKey || ev.altKey || ev.metaKey || ev.code !== 'Backquote') return;
  ev.preventDefault();
  ev.stopPropagation();
  if (ev.shiftKey) openTerminal();
  else toggleTerminal();
}

export function registerTerminalFeature(): void {
  // xterm loads with the first terminal, not with the project page.
  registerPanel(TERMINAL_PANEL, lazyPanel(() => import('./TerminalPanel').then((m) => m.terminalPanel)));
  registerTitleAction({ id: 'terminal', label: 'Terminal (Ctrl+`)', glyph: '⌨', run: toggleTerminal });
  registerCommand({ id: 'terminal.new', label: 'New terminal', shortcut: 'Ctrl+Shift+`', run: openTerminal });
  window.addEventListener('keydown', onKey, { capture: true });
}
