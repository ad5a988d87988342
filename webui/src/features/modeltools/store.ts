// The tab's view of the project's tool runs: every run seen (by id), their progress and live log
// lines, and the project's run history — kept fresh from the `tools` channel.
import { signal } from '@preact/signals';
import { errorMessage } from '../../api/client';
import { ACTIVE_STATUSES, getRun, listRuns, type ToolLogLine, type ToolProgress, type ToolRun } from '../../api/tools';
import { loadDir, listings, parentOf } from '../../kernel/treeStore';
import { later } from '../../kernel/later';
import { pid, session } from '../../kernel/session';

/** Live log lines kept per run; the whole log is read from the server once the run is over. */
const MAX_LIVE_LINES = 2000;

export const runs = signal<Record<string, ToolRun>>({});
export const progress = signal<Record<string, ToolProgress>>({});
export const liveLog = signal<Record<string, string[]>>({});
export const history = signal<ToolRun[] | null>(null);
export const historyError = signal<string | null>(null);

export const isActive = (run: ToolRun): boolean => ACTIVE_STATUSES.includes(run.status);

export function putRun(incoming: ToolRun): void {
  const before = runs.value[incoming.id];
  const run = later(before, incoming);
  if (run === before) return;
  runs.value = { ...runs.value, [run.id]: run };
  if (history.value) {
    const known = history.value.some((r) => r.id === run.id);
    history.value = known ? history.value.map((r) => (r.id === run.id ? run : r)) : [run, ...history.value];
  }
  if (run.status === 'succeeded' && before?.status !== 'succeeded') showOutput(run);
}

/** The tree shows a new model from its `files` event; this covers a folder loaded meanwhile. */
function showOutput(run: ToolRun): void {
  const output = run.result?.output;
  if (typeof output !== 'string') return;
  const dir = parentOf(output);
  if (listings.value[dir] && !listings.value[dir].some((e) => e.path === output)) void loadDir(dir);
}

export async function fetchRun(id: string): Promise<ToolRun> {
  const run = await getRun(id);
  putRun(run);
  return runs.value[id] ?? run;
}

export async function loadHistory(): Promise<void> {
  try {
    const list = await listRuns(pid());
    history.value = list.map((run) => later(runs.value[run.id], run));
    runs.value = { ...Object.fromEntries(list.map((r) => [r.id, r])), ...runs.value };
    historyError.value = null;
  } catch (err) {
    historyError.value = errorMessage(err);
  }
}

function addLine(event: ToolLogLine): void {
  const lines = liveLog.value[event.id] ?? [];
  if (lines.length >= MAX_LIVE_LINES) return;
  liveLog.value = { ...liveLog.value, [event.id]: [...lines, event.line] };
}

export function wireToolEvents(): void {
  session().socket.on('tools', (msg) => {
    if (msg.type === 'run') putRun(msg.data);
    else if (msg.type === 'progress') progress.value = { ...progress.value, [msg.data.id]: msg.data };
    else if (msg.type === 'log') addLine(msg.data);
  });
  // After a reconnect the events missed may be gone: read the runs this tab follows again.
  session().socket.on('sys', (msg) => {
    if (msg.type !== 'resync') return;
    for (const run of Object.values(runs.value)) if (isActive(run)) void fetchRun(run.id).catch(() => undefined);
    if (history.value) void loadHistory();
  });
}
