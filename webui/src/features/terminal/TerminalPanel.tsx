// An interactive terminal: xterm.js on a shell in the project folder. The panel keeps the
// terminal's id in its params (saved with the layout), so a reload reattaches to the same shell.
import { makeXterm } from '../../ui/xterm';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { PanelProps } from '../../kernel/panels';
import { pid } from '../../kernel/session';
import { TerminalConnection } from './connection';

const makeTerminal = (host: HTMLElement) => makeXterm(host, { cursorBlink: true, fontSize: 13, scrollback: 10_000 });

function TerminalView({ api, params }: PanelProps) {
  const host = useRef<HTMLDivElement>(null);
  const [status, setStatus] = useState<string | null>('Starting…');
  useEffect(() => {
    const { term, fit } = makeTerminal(host.current!);
    const saved = typeof params.terminalId === 'string' ? params.terminalId : null;
    const connection = new TerminalConnection(pid(), saved, {
      output: (text, replay) => {
        if (replay) term.reset();
        term.write(text);
      },
      attached: (id) => {
        if (id !== params.terminalId) api.updateParameters({ terminalId: id });
      },
      exited: (code) => {
        term.write(`\r\n\x1b[2m[the shell ended${code === null ? '' : ` with code ${code}`}]\x1b[0m\r\n`);
        setStatus('The shell ended. Close this tab or open a new terminal.');
      },
      status: setStatus,
    }, { cols: term.cols, rows: term.rows });
    const typed = term.onData((data) => connection.input(data));
    const resized = term.onResize(({ cols, rows }) => connection.resize(cols, rows));
    const observer = new ResizeObserver(fit);
    observer.observe(host.current!);
    const shown = api.onDidVisibilityChange(({ isVisible }) => isVisible && fit());
    connection.connect();
    term.focus();
    return () => {
      // The panel is closed (a reload unloads the page without unmounting): end the shell.
      connection.close();
      typed.dispose();
      resized.dispose();
      shown.dispose();
      observer.disconnect();
      term.dispose();
    };
  }, []);
  return (
    <div class="terminal-panel">
      {status && <div class="terminal-status" data-testid="terminal-status">{status}</div>}
      <div class="terminal-host" data-testid="terminal" ref={host} />
    </div>
  );
}

export const terminalPanel = (props: PanelProps) => <TerminalView {...props} />;
