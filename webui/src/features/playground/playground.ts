// A playground project run on the picked device, or on this machine (the server, in its sandbox),
// with the browser as its screen and camera (docs/playground.md):
// `python -m device_bridge.playground.run . --live` reads frames and photos
// from stdin, and its kit calls come back as `MNNWB_KIT` lines on stdout. A frame is sent only
// when the one before is done: frames the camera makes meanwhile are dropped, never queued, and
// each result is drawn on the frame it came from. Or the device's own camera feeds it
// (`--camera`): the frames are the device's, each comes back with its results as a JPEG, one
// in flight at a time (`MNNWB_SHOWN` on stdin when drawn), and the panel is only the screen.
import { computed, signal } from '@preact/signals';
import type { ChannelEvent } from '../../api/types';
import { devices } from '../../kernel/devices';
import { breakpoints } from '../debug/breakpoints';
import { kitLineFilter } from '../debug/kitLines';
import { revealConsoleQuietly } from '../debug/open';
import { errorText, systemLine, writeConsole } from '../debug/output';
import { session } from '../../kernel/session';
import { pickedDevice, runState, sendStdin, sid, startWith, stop, type RunState } from '../debug/run';

export interface KitCall {
  call: string;
  frame: number | null;
  [field: string]: unknown;
}

export interface Rect {
  box: number[];
  text: string;
  color: string;
  width: number;
}

export interface Point {
  at: number[];
  color: string;
  width: number;
}

/** One frame with what the script drew on it. */
export interface Shown {
  frame: number;
  picture: HTMLCanvasElement;
  rects: Rect[];
  points: Point[];
  images: string[];
  latencyMs: number;
}

export interface Stats {
  sent: number;
  done: number;
  dropped: number;
  fps: number;
  latencyMs: number | null;
}

const MARK = 'MNNWB_KIT ';
export const RUN_ARGV = ['-m', 'device_bridge.playground.run', '.', '--live'];

export const labels = signal<Record<number, string>>({});
export const shown = signal<Shown | null>(null);
export const stats = signal<Stats>({ sent: 0, done: 0, dropped: 0, fps: 0, latencyMs: null });
/** What the script asked for once set up: a camera, a photo. */
export const wants = signal<{ camera: boolean; photo: boolean } | null>(null);
export const scriptError = signal<string | null>(null);
export const cameraOn = signal(false);
export const captureWidth = signal(224);
export const captureFps = signal(15);

/** Where the app runs: the picked device, or this machine without a device agent. */
export const onThisMachine = signal(false);
const localSid = signal<string | null>(null);
const localState = signal<RunState>('idle');
export const playgroundState = computed<RunState>(() => (onThisMachine.value ? localState.value : runState.value));
export const canStart = computed(() => onThisMachine.value || Boolean(pickedDevice.value));
/** The picked device's own cameras (`DeviceInfo.cameras`); none on this machine. */
export const deviceCameras = computed<string[]>(() => {
  if (onThisMachine.value) return [];
  return devices.value.find((d) => d.id === pickedDevice.value)?.info.cameras ?? [];
});
/** The camera the next start feeds the app: '' for this browser's, else one of the device's. */
export const cameraSource = signal('');
/** The running app is fed by the device's own camera, not by this tab. */
export const fedByDevice = signal(false);
const runSid = () => (onThisMachine.value ? localSid.value : sid.value);

let partial = '';
let nextFrame = 0;
let inFlight: { frame: number; picture: HTMLCanvasElement; sentAt: number } | null = null;
const drawn = new Map<number, { rects: Rect[]; points: Point[]; images: string[] }>();
const doneTimes: number[] = [];
let video: HTMLVideoElement | null = null;
let stream: MediaStream | null = null;
let timer: number | null = null;

function resetRun(): void {
  labels.value = {};
  shown.value = null;
  wants.value = null;
  fedByDevice.value = false;
  scriptError.value = null;
  stats.value = { sent: 0, done: 0, dropped: 0, fps: 0, latencyMs: null };
  drawn.clear();
  doneTimes.length = 0;
  inFlight = null;
  partial = '';
}

function onFrame(frame: number) {
  let entry = drawn.get(frame);
  if (!entry) drawn.set(frame, (entry = { rects: [], points: [], images: [] }));
  return entry;
}

function onCall(call: KitCall): void {
  const frame = call.frame;
  if (call.call === 'setLabel') labels.value = { ...labels.value, [Number(call.index)]: String(call.text) };
  else if (call.call === 'live') {
    wants.value = { camera: Boolean(call.camera), photo: Boolean(call.photo) };
    fedByDevice.value = String(call.source ?? 'browser') !== 'browser';
  }
  else if (call.call === 'error') scriptError.value = String(call.error);
  else if (call.call === 'frame.error') scriptError.value = `frame ${frame}: ${String(call.error)}`;
  else if (call.call === 'drawRects' && frame !== null) {
    const boxes = call.rects as number[][];
    const texts = call.texts as string[];
    onFrame(frame).rects.push(...boxes.map((box, i) => ({ box, text: texts[i] ?? '', color: String(call.lineColor ?? 'red'), width: Number(call.lineWidth ?? 2) })));
  } else if (call.call === 'drawPoints' && frame !== null) {
    onFrame(frame).points.push(...(call.points as number[][]).map((at) => ({ at, color: String(call.color ?? 'red'), width: Number(call.width ?? 4) })));
  } else if (call.call === 'drawImage' && frame !== null) {
    const image = call.image as { shape: number[] };
    onFrame(frame).images.push(image.shape.join('×'));
  } else if (call.call === 'frame.done' && fedByDevice.value && frame !== null) deviceFrameDone(call, frame);
  else if (call.call === 'frame.done' && inFlight && frame === inFlight.frame) finishFrame();
}

function countDone(now: number): number {
  doneTimes.push(now);
  while (doneTimes.length && now - doneTimes[0] > 1000) doneTimes.shift();
  return doneTimes.length;
}

/** The picture a device sent (base64 JPEG), at the size of the frame the app had. */
async function pictureFromJpeg(jpeg: string, width: number, height: number): Promise<HTMLCanvasElement> {
  const bytes = Uint8Array.from(atob(jpeg), (c) => c.charCodeAt(0));
  const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/jpeg' }));
  const picture = document.createElement('canvas');
  picture.width = width;
  picture.height = height;
  picture.getContext('2d')!.drawImage(bitmap, 0, 0, width, height);
  bitmap.close();
  return picture;
}

/** A frame of the device's camera done: its figures; with its picture, drawn and answered. */
function deviceFrameDone(call: KitCall, frame: number): void {
  const entry = drawn.get(frame) ?? { rects: [], points: [], images: [] };
  for (const key of [...drawn.keys()]) if (key <= frame) drawn.delete(key);
  const latencyMs = Number(call.latency_ms);
  const fps = countDone(performance.now());
  stats.value = { ...stats.value, done: stats.value.done + 1, fps, latencyMs, dropped: Number(call.dropped ?? 0) };
  if (typeof call.jpeg !== 'string') return; // a preview is in flight: this one's picture stayed there
  const startedSid = runSid();
  void pictureFromJpeg(call.jpeg, Number(call.width), Number(call.height))
    .then((picture) => {
      if (runSid() !== startedSid) return;
      shown.value = { frame, picture, ...entry, latencyMs };
    })
    .catch((err: unknown) => (scriptError.value = `frame ${frame}: ${String(err)}`))
    .finally(() => sendToRun(`MNNWB_SHOWN ${JSON.stringify({ frame })}\n`));
}

function finishFrame(): void {
  const done = inFlight!;
  inFlight = null;
  const now = performance.now();
  const fps = countDone(now);
  const entry = drawn.get(done.frame) ?? { rects: [], points: [], images: [] };
  drawn.delete(done.frame);
  const latencyMs = now - done.sentAt;
  shown.value = { frame: done.frame, picture: done.picture, ...entry, latencyMs };
  stats.value = { ...stats.value, done: stats.value.done + 1, fps, latencyMs };
}

function onStdout(text: string): void {
  const lines = (partial + text).split('\n');
  partial = lines.pop() ?? '';
  for (const line of lines) {
    if (!line.startsWith(MARK)) continue;
    try {
      onCall(JSON.parse(line.slice(MARK.length)) as KitCall);
    } catch {
      // a line of the script's own that happens to start the same way
    }
  }
}

const localConsole = kitLineFilter();

/** A run on this machine in the Device Console, as a device run's: its output without the kit's
 * lines, stderr in red, its start and end (a device run's come from debug/run.ts). */
function toConsole(msg: ChannelEvent<'log'>): void {
  if (msg.type === 'run.started') {
    localConsole.reset();
    systemLine(`Running on this machine: python ${RUN_ARGV.join(' ')}`);
    revealConsoleQuietly();
  } else if (msg.type === 'log') {
    const log = msg.data;
    if (log.stream === 'stderr') errorText(log.text);
    else writeConsole(localConsole.strip(log.text));
  } else if (msg.type === 'run.exit') {
    const exit = msg.data;
    systemLine(exit.signal ? `Process ended by signal ${exit.signal}.` : `Process exited with code ${exit.code}.`);
  }
}

export function wirePlaygroundEvents(): void {
  const { socket } = session();
  socket.on('log', (msg) => {
    if (msg.type === 'job.log' || !msg.data.sid || msg.data.sid !== runSid()) return;
    if (onThisMachine.value) toConsole(msg);
    if (msg.type === 'run.started') {
      resetRun();
      if (onThisMachine.value) localState.value = 'running';
    } else if (msg.type === 'run.exit') {
      inFlight = null;
      stopCamera();
      if (onThisMachine.value) localState.value = 'idle';
    } else if (msg.type === 'log' && msg.data.stream === 'stdout') onStdout(msg.data.text);
  });
  socket.on('devices', (msg) => {
    if (msg.type !== 'error' || !localSid.value || msg.data.sid !== localSid.value) return;
    const error = msg.data;
    scriptError.value = `${error.message} (${error.code})`;
    if (error.ref === 'run.start') localState.value = 'idle';
  });
}

export function startPlayground(): Promise<void> {
  resetRun();
  if (!onThisMachine.value) {
    const camera = deviceCameras.value.includes(cameraSource.value) ? cameraSource.value : '';
    const fed = camera ? ['--camera', camera, '--width', String(captureWidth.value)] : [];
    // Under the debugger when the project has breakpoints: they stop the app's callbacks there.
    const debug = Object.values(breakpoints.value).some((lines) => lines.length > 0);
    return startWith([...RUN_ARGV, ...fed], debug);
  }
  localSid.value = `local-${Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join('')}`;
  localState.value = 'starting';
  session().socket.send('playground', 'run.start', { sid: localSid.value });
  return Promise.resolve();
}

export function stopPlayground(): void {
  stopCamera();
  if (!onThisMachine.value) stop();
  else if (localSid.value) session().socket.send('playground', 'run.stop', { sid: localSid.value });
}

function sendToRun(text: string): void {
  if (!onThisMachine.value) sendStdin(text);
  else if (localSid.value && localState.value === 'running') session().socket.send('playground', 'run.stdin', { sid: localSid.value, text });
}

function pictureOf(source: CanvasImageSource, width: number, height: number): HTMLCanvasElement {
  const scale = Math.min(1, captureWidth.value / width);
  const picture = document.createElement('canvas');
  picture.width = Math.max(1, Math.round(width * scale));
  picture.height = Math.max(1, Math.round(height * scale));
  picture.getContext('2d')!.drawImage(source, 0, 0, picture.width, picture.height);
  return picture;
}

function send(kind: 'MNNWB_FRAME' | 'MNNWB_PHOTO', picture: HTMLCanvasElement): void {
  const frame = nextFrame++;
  const jpeg = picture.toDataURL('image/jpeg', 0.85).slice('data:image/jpeg;base64,'.length);
  inFlight = { frame, picture, sentAt: performance.now() };
  stats.value = { ...stats.value, sent: stats.value.sent + 1 };
  sendToRun(`${kind} ${JSON.stringify({ frame, jpeg })}\n`);
}

/** One tick of the camera: a frame goes when none is in flight, else this one is dropped. */
function tick(): void {
  if (!video || video.readyState < 2 || playgroundState.value !== 'running' || !wants.value?.camera) return;
  if (inFlight) {
    stats.value = { ...stats.value, dropped: stats.value.dropped + 1 };
    return;
  }
  send('MNNWB_FRAME', pictureOf(video, video.videoWidth, video.videoHeight));
}

export async function startCamera(): Promise<void> {
  stream = await navigator.mediaDevices.getUserMedia({ video: true, audio: false });
  video = document.createElement('video');
  video.muted = true;
  video.playsInline = true;
  video.srcObject = stream;
  await video.play();
  cameraOn.value = true;
  timer = window.setInterval(tick, 1000 / captureFps.value);
}

export function stopCamera(): void {
  if (timer !== null) window.clearInterval(timer);
  timer = null;
  stream?.getTracks().forEach((track) => track.stop());
  stream = null;
  video = null;
  cameraOn.value = false;
}

/** A photo from the person's disk to the script's `selectPhoto` callback. */
export async function sendPhoto(file: File): Promise<void> {
  const bitmap = await createImageBitmap(file);
  send('MNNWB_PHOTO', pictureOf(bitmap, bitmap.width, bitmap.height));
}
