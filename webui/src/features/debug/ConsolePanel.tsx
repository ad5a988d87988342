// The device console: the program's stdout (and stderr in red) in an xterm; typing goes to the
// program's stdin a line at a time, echoed locally as a terminal in cooked mode would.
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef } from 'preact/hooks';
import { followConsole } from './output';
import { runState, sendStdin } from './run';

const THEME = { background: '#1e1e1e', foreground: '#cccccc', selectionBackground: '#264f78', cursor: '#aeafad' };

function makeTerminal(host: HTMLElement): { term: Terminal; fit: () => void } {
  const term = new Terminal({
    convertEol: true,
    cursorBlink: false,
    fontFamily: "ui-monospace, 'SF Mono', Menlo, Consolas, 'DejaVu Sans Mono', monospace",
    fontSize: 12,
    lineHeight: 1.15,
    scrollback: 20_000,
    theme: THEME,
  });
  const addon = new FitAddon();
  term.loadAddon(addon);
  term.open(host);
  const fit = () => host.clientWidth > 0 && host.clientHeight > 0 && addon.fit();
  fit();
  return { term, fit };
}

/** A line editor for stdin: printable input is echoed, Enter sends the line, Ctrl+D sends EOF. */
function lineInput(term: Terminal): void {
  let line = '';
  term.onData((data) => {
    for (const ch of data) {
      if (ch === '\r') {
        term.write('\r\n');
        sendStdin(`${line}\n`);
        line = '';
      } else if (ch === '\x7f') {
        if (line) term.write('\b \b');
        line = line.slice(0, -1);
      } else if (ch >= ' ') {
        line += ch;
        term.write(ch);
      }
    }
  });
}

export function ConsolePanel() {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const { term, fit } = makeTerminal(host.current!);
    const resize = new ResizeObserver(fit);
    resize.observe(host.current!);
    lineInput(term);
    const stop = followConsole((text) => term.write(text));
    return () => {
      stop();
      resize.disconnect();
      term.dispose();
    };
  }, []);
  return (
    <div class="device-console" data-testid="device-console" data-state={runState.value}>
      <div class="console-term" ref={host} />
    </div>
  );
}
