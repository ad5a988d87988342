// The tab's runs on a device: the picked device and the project's session on it, deploy (sync),
// run or debug a program, stdin and stop, following the `log` and `devices` events of the session.
import { computed, signal } from '@preact/signals';
import { errorMessage } from '../../api/client';
import { openSession, type SessionStateEvent, type SyncDone } from '../../api/devices';
import type { ChannelEvent } from '../../api/types';
import { listTemplates } from '../../api/projects';
import { notify } from '../../ui/toast';
import { activePath } from '../../kernel/active';
import { pid, session } from '../../kernel/session';
import { endDebug, startDebug } from './debugger';
import { resetKitLines, withoutKitCalls } from './kitLines';
import { errorText, systemLine, writeConsole } from './output';

// debugpy warns on stderr about frozen modules on every start; its breakpoints work regardless.
const DEBUG_ENV = { PYDEVD_DISABLE_FILE_VALIDATION: '1' };

export type RunState = 'idle' | 'deploying' | 'starting' | 'running';

// Per tab: two tabs of one project may use two devices.
const DEVICE_KEY = () => `mnnwb.device.${pid()}`;

export const pickedDevice = signal<string | null>(null);
export const sid = signal<string | null>(null);
export const runState = signal<RunState>('idle');
export const debugging = signal(false);
export const lastSync = signal<SyncDone | null>(null);
/** The command line typed in the toolbar; empty means the current file or the template's. */
export const commandLine = signal('');
const templateCommand = signal<string[]>([]);

export const busy = computed(() => runState.value !== 'idle');

/** What Run starts: the typed command line, the current Python file, or the template's default. */
export const runArgv = computed<string[]>(() => {
  const typed = splitArgs(commandLine.value);
  if (typed.length) return typed;
  const path = activePath.value;
  if (path?.endsWith('.py')) return [path];
  return templateCommand.value;
});

export function splitArgs(line: string): string[] {
  const words = line.match(/"[^"]*"|'[^']*'|\S+/g) ?? [];
  const argv = words.map((w) => (/^["'].*["']$/.test(w) ? w.slice(1, -1) : w));
  // The device runs `python -u <argv>`: a leading interpreter name is not part of argv.
  return argv.length && /^python[0-9.]*$/.test(argv[0]) ? argv.slice(1) : argv;
}

export function pickDevice(deviceId: string | null): void {
  if (deviceId !== pickedDevice.value) sid.value = null;
  pickedDevice.value = deviceId;
  if (deviceId) sessionStorage.setItem(DEVICE_KEY(), deviceId);
  else sessionStorage.removeItem(DEVICE_KEY());
}

async function ensureSession(): Promise<string> {
  const deviceId = pickedDevice.value;
  if (!deviceId) throw new Error('Pick a device first.');
  if (sid.value) return sid.value;
  const opened = await openSession(pid(), deviceId);
  sid.value = opened.sid;
  return opened.sid;
}

let syncWaiter: { resolve: (done: SyncDone) => void; reject: (err: Error) => void } | null = null;

async function sync(): Promise<SyncDone> {
  const current = await ensureSession();
  runState.value = 'deploying';
  const done = new Promise<SyncDone>((resolve, reject) => (syncWaiter = { resolve, reject }));
  session().socket.send('devices', 'sync.start', { sid: current });
  const result = await done;
  lastSync.value = result;
  const failed = result.failed.length ? `, ${result.failed.length} failed` : '';
  systemLine(`Deployed: ${result.sent.length} of ${result.files} files sent, ${result.deleted.length} deleted${failed}.`);
  return result;
}

async function guarded(action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (err) {
    runState.value = 'idle';
    notify(errorMessage(err));
  }
}

/** Deploys the project; false when that failed (the user was told). */
export async function deploy(): Promise<boolean> {
  let ok = false;
  await guarded(async () => {
    await sync();
    runState.value = 'idle';
    ok = true;
  });
  return ok;
}

export function start(debug: boolean): Promise<void> {
  return startWith(runArgv.value, debug);
}

/** Deploys, then runs ``python -u <argv>`` on the picked device (the Playground panel's run). */
export function startWith(argv: string[], debug: boolean): Promise<void> {
  return guarded(async () => {
    if (!argv.length) throw new Error('Open a Python file or type a command line to run.');
    await sync();
    runState.value = 'starting';
    debugging.value = debug;
    systemLine(`${debug ? 'Debugging' : 'Running'}: python ${argv.join(' ')}`);
    session().socket.send('log', 'run.start', { sid: sid.value, argv, debug, env: debug ? DEBUG_ENV : {} });
  });
}

export function stop(): void {
  if (sid.value) session().socket.send('log', 'run.stop', { sid: sid.value });
}

export function sendStdin(text: string): void {
  if (sid.value && runState.value === 'running') session().socket.send('log', 'log.stdin', { sid: sid.value, text });
}

function onLog(msg: ChannelEvent<'log'>): void {
  if (msg.type === 'job.log' || msg.data.sid !== sid.value) return;
  if (msg.type === 'run.started') {
    const started = msg.data;
    resetKitLines();
    runState.value = 'running';
    if (started.debug) void startDebug(started.sid, started.cwd);
  } else if (msg.type === 'log') {
    const log = msg.data;
    if (log.stream === 'stderr') errorText(log.text);
    else writeConsole(withoutKitCalls(log.text));
  } else if (msg.type === 'run.exit') {
    const exit = msg.data;
    runState.value = 'idle';
    debugging.value = false;
    endDebug();
    systemLine(exit.signal ? `Process ended by signal ${exit.signal}.` : `Process exited with code ${exit.code}.`);
  }
}

function onSessionState(event: SessionStateEvent): void {
  if (event.sid !== sid.value) return;
  if (event.state === 'lost') {
    systemLine(`The device disconnected${event.reason ? ` (${event.reason})` : ''}.`);
    syncWaiter?.reject(new Error('The device disconnected.'));
  } else if (event.state === 'closed') {
    sid.value = null;
  }
  if (event.state !== 'open') {
    runState.value = 'idle';
    debugging.value = false;
    endDebug();
  }
}

function onDeviceEvent(msg: ChannelEvent<'devices'>): void {
  if (msg.type === 'session.state') onSessionState(msg.data);
  if (!('sid' in msg.data) || msg.data.sid !== sid.value) return;
  if (msg.type === 'sync.done') {
    syncWaiter?.resolve(msg.data);
    syncWaiter = null;
  } else if (msg.type === 'error') {
    const error = msg.data;
    systemLine(`Error (${error.code}): ${error.message}`);
    // The server no longer knows the session (e.g. it restarted): the next action opens a new one.
    if (error.code === 'unknown_session') sid.value = null;
    if (error.ref === 'sync.start') syncWaiter?.reject(new Error(error.message));
    if (error.ref === 'run.start' || error.code === 'busy' || error.code === 'run_failed') runState.value = 'idle';
  }
}

export function wireRunEvents(): void {
  pickedDevice.value = sessionStorage.getItem(DEVICE_KEY());
  const { socket, project } = session();
  socket.on('log', onLog);
  socket.on('devices', onDeviceEvent);
  if (project.template) {
    listTemplates()
      .then((list) => (templateCommand.value = splitArgs(list.find((t) => t.name === project.template)?.default_command ?? '')))
      .catch(() => undefined);
  }
}
