// The device console: the program's stdout (and stderr in red) in an xterm; typing goes to the
// program's stdin a line at a time, echoed locally as a terminal in cooked mode would.
import type { Terminal } from '@xterm/xterm';
import { makeXterm, XTERM_THEME } from '../../ui/xterm';
import { useEffect, useRef } from 'preact/hooks';
import { followConsole } from './output';
import { runState, sendStdin } from './run';

const makeTerminal = (host: HTMLElement) => makeXterm(host, {
  convertEol: true, cursorBlink: false, fontSize: 12, lineHeight: 1.15, scrollback: 20_000,
  theme: { ...XTERM_THEME, cursor: '#aeafad' },
});

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
