// A run's log, collapsed by default: live lines while it runs, the whole file once it is over.
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { readRunLog, type ToolRun } from '../../api/tools';
import { isActive, liveLog } from './store';

const PROGRESS_LINE = /^MNNWB_PROGRESS /;
const MAX_PAGES = 40;

async function wholeLog(id: string): Promise<string> {
  let text = '';
  let offset = 0;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const part = await readRunLog(id, offset);
    text += part.text;
    if (part.complete || part.next_offset === offset) break;
    offset = part.next_offset;
  }
  return text.split('\n').filter((line) => !PROGRESS_LINE.test(line)).join('\n');
}

export function RunLog({ run }: { run: ToolRun }) {
  const [open, setOpen] = useState(run.status === 'failed' || run.status === 'crashed');
  const [text, setText] = useState<string | null>(null);
  const body = useRef<HTMLPreElement>(null);
  const active = isActive(run);
  useEffect(() => {
    if (!open || active) return;
    let live = true;
    wholeLog(run.id).then((t) => live && setText(t), (err) => live && setText(`(the log cannot be read: ${errorMessage(err)})`));
    return () => void (live = false);
  }, [open, active, run.id]);
  const lines = liveLog.value[run.id] ?? [];
  const shown = active ? lines.join('\n') : text ?? 'Loading…';
  useEffect(() => {
    const pre = body.current;
    if (pre && active) pre.scrollTop = pre.scrollHeight;
  }, [shown]);
  return (
    <details class="tool-log" open={open} data-testid="tool-log" onToggle={(ev) => setOpen(ev.currentTarget.open)}>
      <summary>Log{active && lines.length > 0 && <span class="muted"> · {lines.at(-1)}</span>}</summary>
      {open && <pre ref={body} class="tool-log-text" data-testid="tool-log-text">{shown || '(empty)'}</pre>}
    </details>
  );
}
