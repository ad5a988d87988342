// The job's log in a read-only xterm, following the log by offset (see logStream.ts).
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef } from 'preact/hooks';
import { session } from '../../kernel/session';
import { LogFollower } from './logStream';

const THEME = { background: '#1e1e1e', foreground: '#cccccc', selectionBackground: '#264f78' };
const SCROLLBACK = 20_000;

function makeTerminal(host: HTMLElement): { term: Terminal; fit: () => void } {
  const term = new Terminal({
    convertEol: true,
    disableStdin: true,
    cursorBlink: false,
    cursorInactiveStyle: 'none',
    fontFamily: "ui-monospace, 'SF Mono', Menlo, Consolas, 'DejaVu Sans Mono', monospace",
    fontSize: 12,
    lineHeight: 1.15,
    scrollback: SCROLLBACK,
    theme: THEME,
  });
  const addon = new FitAddon();
  term.loadAddon(addon);
  term.open(host);
  // A log has no cursor to show.
  term.write('\x1b[?25l');
  // A panel hidden in the dock has no size; fitting it then would shrink the terminal to nothing.
  const fit = () => host.clientWidth > 0 && host.clientHeight > 0 && addon.fit();
  fit();
  return { term, fit };
}

/** `ended`: the job has finished; the log is then read to its end once more, so that a last
 * batch lost on the way (a dropped connection) still shows. */
export function LogTerminal({ jobId, ended }: { jobId: string; ended: boolean }) {
  const host = useRef<HTMLDivElement>(null);
  const follower = useRef<LogFollower | null>(null);
  useEffect(() => {
    const { term, fit } = makeTerminal(host.current!);
    const resize = new ResizeObserver(fit);
    resize.observe(host.current!);
    const logs = new LogFollower(
      jobId,
      (text) => term.write(text),
      (message) => term.write(`\x1b[31m${message}\x1b[0m\n`),
    );
    follower.current = logs;
    const { socket } = session();
    const offLog = socket.on('log', (msg) => msg.type === 'job.log' && logs.onEvent(msg.data));
    const offSys = socket.on('sys', (msg) => msg.type === 'resync' && logs.resync());
    logs.start();
    return () => {
      offLog();
      offSys();
      logs.close();
      resize.disconnect();
      term.dispose();
    };
  }, [jobId]);
  useEffect(() => {
    if (ended) follower.current?.resync();
  }, [ended]);
  return <div class="job-terminal" data-testid="job-log" ref={host} />;
}
