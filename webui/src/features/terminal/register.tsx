// The integrated terminal: its panel and its commands (Ctrl+` shows it, Ctrl+Shift+` opens another).
import { registerCommand } from '../../kernel/commands';
import { lazyPanel } from '../../kernel/lazyPanel';
import { dock, registerPanel, registerTitleAction } from '../../kernel/panels';
import { openTerminal, TERMINAL_PANEL, toggleTerminal } from './open';
import './terminal.css';

/** Closes the active terminal (the first when none is active), which ends its shell. */
function killTerminal(): void {
  const api = dock();
  const isTerminal = (id: string) => id.startsWith(`${TERMINAL_PANEL}:`);
  const active = api.activePanel && isTerminal(api.activePanel.id) ? api.activePanel : api.panels.find((p) => isTerminal(p.id));
  active?.api.close();
}

export function registerTerminalFeature(): void {
  // xterm loads with the first terminal, not with the project page.
  registerPanel(TERMINAL_PANEL, lazyPanel(() => import('./TerminalPanel').then((m) => m.terminalPanel)));
  registerTitleAction({ id: 'terminal', label: 'Terminal', category: 'Terminal', shortcut: 'Ctrl+`', glyph: '⌨', icon: 'terminal', run: toggleTerminal });
  registerCommand({ id: 'terminal.new', label: 'New terminal', category: 'Terminal', shortcut: 'Ctrl+Shift+`', run: openTerminal });
  registerCommand({ id: 'terminal.kill', label: 'Kill the active terminal', category: 'Terminal', run: killTerminal });
}
