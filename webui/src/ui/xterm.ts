// An xterm.js terminal in a host element, fitted to it: the integrated terminal and the device
// console share the look and the fitting; each passes what differs (cursor, scrollback, …).
import { FitAddon } from '@xterm/addon-fit';
import { Terminal, type ITerminalOptions } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';

export const XTERM_THEME = { background: '#1e1e1e', foreground: '#cccccc', selectionBackground: '#264f78' };
const FONT = "ui-monospace, 'SF Mono', Menlo, Consolas, 'DejaVu Sans Mono', monospace";

export function makeXterm(host: HTMLElement, options: ITerminalOptions): { term: Terminal; fit: () => void } {
  const term = new Terminal({ fontFamily: FONT, theme: XTERM_THEME, ...options });
  const addon = new FitAddon();
  term.loadAddon(addon);
  term.open(host);
  // A hidden panel has no size; fitting it then would shrink the terminal to nothing.
  const fit = () => host.clientWidth > 0 && host.clientHeight > 0 && addon.fit();
  fit();
  return { term, fit };
}
