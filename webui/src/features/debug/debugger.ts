// The debugger: an attach session over DAP (docs/protocol.md §6) and what the views show — the
// stopped thread's frames, the selected frame's scopes, watch values and the evaluate log.
import { signal } from '@preact/signals';
import { errorMessage } from '../../api/client';
import { session } from '../../kernel/session';
import { breakpointListeners, breakpoints, DEFAULT_EXCEPTION_FILTERS, exceptionFilters, type ExceptionFilter } from './breakpoints';
import { DapClient, type DapMessage } from './dap';
import { systemLine } from './output';

export type DebugState = 'inactive' | 'starting' | 'running' | 'stopped';

export interface StackFrame {
  id: number;
  name: string;
  line: number;
  column: number;
  source?: { path?: string; name?: string };
}

export interface Scope {
  name: string;
  variablesReference: number;
  expensive?: boolean;
}

export interface Variable {
  name: string;
  value: string;
  type?: string;
  variablesReference: number;
}

export interface ReplEntry {
  input: string;
  output: string;
  error: boolean;
}

export const debugState = signal<DebugState>('inactive');
export const stopReason = signal('');
export const frames = signal<StackFrame[]>([]);
export const selectedFrame = signal<number | null>(null);
export const scopes = signal<Scope[]>([]);
/** Bumped on every stop: expanded variable nodes re-read their children. */
export const stopCount = signal(0);
/** The current line as a project path, when the frame is inside the project. */
export const currentLocation = signal<{ path: string; line: number } | null>(null);
export const filters = signal<ExceptionFilter[]>(DEFAULT_EXCEPTION_FILTERS);
export const watches = signal<string[]>([]);
export const watchValues = signal<Record<string, { value: string; error: boolean }>>({});
export const repl = signal<ReplEntry[]>([]);

let client: DapClient | null = null;
let cwd = '';
let threadId = 1;

export const remotePath = (path: string) => `${cwd}/${path}`;

export function projectPath(remote: string | undefined): string | null {
  if (!remote || !remote.startsWith(`${cwd}/`)) return null;
  return remote.slice(cwd.length + 1);
}

async function sendBreakpoints(path: string): Promise<void> {
  if (!client) return;
  const lines = breakpoints.value[path] ?? [];
  await client.request('setBreakpoints', { source: { path: remotePath(path) }, breakpoints: lines.map((line) => ({ line })) });
}

async function sendExceptionFilters(): Promise<void> {
  await client?.request('setExceptionBreakpoints', { filters: exceptionFilters.value });
}

function onBreakpointsChanged(path: string): void {
  if (!client || debugState.value === 'starting') return;
  const job = path ? sendBreakpoints(path) : sendExceptionFilters();
  job.catch((err) => systemLine(`Breakpoints: ${errorMessage(err)}`));
}

async function configure(active: DapClient): Promise<void> {
  await active.once('initialized');
  for (const path of Object.keys(breakpoints.value)) await sendBreakpoints(path);
  await sendExceptionFilters();
  await active.request('configurationDone');
}

function wireEvents(active: DapClient): void {
  active.on('stopped', (body) => {
    threadId = Number(body.threadId ?? threadId);
    stopReason.value = String(body.description ?? body.reason ?? 'paused');
    void refreshStopped();
  });
  active.on('continued', () => markRunning());
  active.on('output', (body) => {
    // The program's own output reaches the console as `log` events already.
    if (body.category === 'console' || body.category === 'important') systemLine(String(body.output ?? '').trimEnd());
  });
  active.on('terminated', () => {
    active.request('disconnect', {}).catch(() => undefined);
    endDebug();
  });
}

export async function startDebug(sid: string, remoteCwd: string): Promise<void> {
  endDebug();
  cwd = remoteCwd.replace(/\/+$/, '');
  const active = new DapClient(sid, (msg) => session().socket.send('dap', 'dap', { sid, msg: msg as unknown as Record<string, unknown> }));
  client = active;
  debugState.value = 'starting';
  wireEvents(active);
  try {
    const caps = await active.request<{ exceptionBreakpointFilters?: ExceptionFilter[] }>('initialize', {
      clientID: 'mnnwb', clientName: 'MNN Workbench', adapterID: 'python', pathFormat: 'path',
      linesStartAt1: true, columnsStartAt1: true, supportsVariableType: true,
    });
    if (caps.exceptionBreakpointFilters?.length) filters.value = caps.exceptionBreakpointFilters;
    const attached = active.request('attach', { justMyCode: true });
    await configure(active);
    await attached;
    if (debugState.value === 'starting') debugState.value = 'running';
  } catch (err) {
    if (client === active) systemLine(`Debugger: ${errorMessage(err)}`);
  }
}

export function endDebug(): void {
  client?.close();
  client = null;
  watchValues.value = {};
  debugState.value = 'inactive';
  markRunning();
}

function markRunning(): void {
  if (debugState.value === 'stopped') debugState.value = 'running';
  frames.value = [];
  scopes.value = [];
  selectedFrame.value = null;
  currentLocation.value = null;
}

async function refreshStopped(): Promise<void> {
  if (!client) return;
  const trace = await client.request<{ stackFrames: StackFrame[] }>('stackTrace', { threadId, startFrame: 0, levels: 50 });
  frames.value = trace.stackFrames;
  debugState.value = 'stopped';
  stopCount.value += 1;
  const first = trace.stackFrames.find((f) => projectPath(f.source?.path)) ?? trace.stackFrames[0];
  if (first) await selectFrame(first);
}

export async function selectFrame(frame: StackFrame): Promise<void> {
  if (!client) return;
  selectedFrame.value = frame.id;
  const path = projectPath(frame.source?.path);
  currentLocation.value = path ? { path, line: frame.line } : null;
  const body = await client.request<{ scopes: Scope[] }>('scopes', { frameId: frame.id });
  scopes.value = body.scopes;
  void evaluateWatches();
}

export async function variables(reference: number): Promise<Variable[]> {
  if (!client) return [];
  const body = await client.request<{ variables: Variable[] }>('variables', { variablesReference: reference });
  return body.variables;
}

async function evaluate(expression: string, context: 'watch' | 'repl'): Promise<{ value: string; error: boolean }> {
  if (!client) return { value: 'not available', error: true };
  try {
    const body = await client.request<{ result: string }>('evaluate', { expression, context, frameId: selectedFrame.value ?? undefined });
    return { value: body.result, error: false };
  } catch (err) {
    return { value: errorMessage(err), error: true };
  }
}

export async function evaluateWatches(): Promise<void> {
  if (debugState.value !== 'stopped') return;
  const values: Record<string, { value: string; error: boolean }> = {};
  for (const expression of watches.value) values[expression] = await evaluate(expression, 'watch');
  watchValues.value = values;
}

export async function evaluateInRepl(expression: string): Promise<void> {
  const result = debugState.value === 'stopped' ? await evaluate(expression, 'repl') : { value: 'The program is not paused.', error: true };
  repl.value = [...repl.value, { input: expression, output: result.value, error: result.error }];
}

type Step = 'continue' | 'next' | 'stepIn' | 'stepOut' | 'pause';

export function step(command: Step): void {
  if (!client) return;
  if (command === 'pause' ? debugState.value !== 'running' : debugState.value !== 'stopped') return;
  if (command !== 'pause') markRunning();
  client.request(command, { threadId }).catch((err) => systemLine(`${command}: ${errorMessage(err)}`));
}

export function wireDapEvents(): void {
  session().socket.on('dap', (msg) => {
    const data = msg.data as { sid?: string; msg?: DapMessage };
    if (client && data.sid === client.sid && data.msg) client.receive(data.msg);
  });
  breakpointListeners.add(onBreakpointsChanged);
}
