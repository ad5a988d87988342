// A pipeline run on a camera, frame after frame (docs/pipelines.md, "On a camera"):
// `python -m device_bridge.runtime.pipeline_live PIPELINE [--camera DEVICE --width W]`, on this
// machine (the server's sandbox, channel `playground`) or on a paired device (a device run). With
// this browser's camera a frame is sent (`MNNWB_FRAME` on stdin) only when the one before is done:
// the frames made meanwhile are dropped and counted, never queued. With the device's own camera
// the device reads it and each result may carry its frame as a JPEG, one in flight at a time
// (`MNNWB_SHOWN` on stdin once drawn). Each frame comes back as one `MNNWB_PIPELINE` line.
import { signal } from '@preact/signals';
import type { PipelineInputResult } from '../../../api/tools';
import { pickDevice, runState, sendStdin, sid as deviceSid, startWith, stop as stopDeviceRun } from '../../debug/run';
import { session } from '../../../kernel/session';

const MARK = 'MNNWB_PIPELINE ';
export const LIVE_ARGV = ['-m', 'device_bridge.runtime.pipeline_live'];

export interface Figures { median_ms: number; p90_ms: number }

/** The median and p90 over the frames so far, end to end and per stage. */
export interface LiveSummary {
  frames: number;
  end_to_end: Figures;
  stages: Record<string, Figures>;
}

/** A frame's result with the picture it ran on (a data URL). */
export interface LiveFrame {
  frame: number;
  picture: string;
  result: PipelineInputResult;
}

export type LiveState = 'idle' | 'starting' | 'running';

export const liveState = signal<LiveState>('idle');
export const shownFrame = signal<LiveFrame | null>(null);
export const liveSummary = signal<LiveSummary | null>(null);
export const liveCounts = signal({ sent: 0, done: 0, dropped: 0 });
export const liveError = signal<string | null>(null);
export const liveSource = signal<string | null>(null);

interface Run { sid: string; local: boolean; browser: boolean }
let run: Run | null = null;
let partial = '';
let inFlight: { frame: number; picture: string } | null = null;
let nextFrame = 0;
let video: HTMLVideoElement | null = null;
let stream: MediaStream | null = null;
let timer: number | null = null;
let wired = false;

function reset(): void {
  shownFrame.value = null;
  liveSummary.value = null;
  liveCounts.value = { sent: 0, done: 0, dropped: 0 };
  liveError.value = null;
  liveSource.value = null;
  inFlight = null;
  nextFrame = 0;
  partial = '';
}

function toRun(text: string): void {
  if (!run) return;
  if (!run.local) sendStdin(text);
  else session().socket.send('playground', 'run.stdin', { sid: run.sid, text });
}

function onFrame(event: Record<string, unknown>): void {
  const frame = Number(event.frame);
  const result = { input: `frame ${frame}`, ...(event.result as Omit<PipelineInputResult, 'input'>) };
  liveSummary.value = event.summary as LiveSummary;
  let picture: string | null = null;
  if (run?.browser) {
    if (inFlight?.frame === frame) picture = inFlight.picture;
    inFlight = null;
    liveCounts.value = { ...liveCounts.value, done: liveCounts.value.done + 1 };
  } else {
    liveCounts.value = { ...liveCounts.value, done: liveCounts.value.done + 1, dropped: Number(event.dropped ?? 0) };
    if (typeof event.jpeg === 'string') {
      picture = `data:image/jpeg;base64,${event.jpeg}`;
      toRun(`MNNWB_SHOWN ${JSON.stringify({ frame })}\n`); // drawn below, at once: the next may come
    }
  }
  if (picture) shownFrame.value = { frame, picture, result };
}

function onEvent(event: Record<string, unknown>): void {
  if (event.event === 'live') liveSource.value = String(event.source);
  else if (event.event === 'frame') onFrame(event);
  else if (event.event === 'frame.error') {
    liveError.value = `frame ${String(event.frame)}: ${String(event.error)}`;
    if (inFlight?.frame === Number(event.frame)) inFlight = null;
  } else if (event.event === 'error') liveError.value = String(event.error);
}

function onStdout(text: string): void {
  const lines = (partial + text).split('\n');
  partial = lines.pop() ?? '';
  for (const line of lines) {
    if (!line.startsWith(MARK)) continue;
    try {
      onEvent(JSON.parse(line.slice(MARK.length)) as Record<string, unknown>);
    } catch {
      // a line of the pipeline's own code that happens to start the same way
    }
  }
}

function wire(): void {
  if (wired) return;
  wired = true;
  const { socket } = session();
  socket.on('log', (msg) => {
    if (!run || msg.type === 'job.log' || msg.data.sid !== run.sid) return;
    if (msg.type === 'run.started') liveState.value = 'running';
    else if (msg.type === 'run.exit') end();
    else if (msg.type === 'log' && msg.data.stream === 'stdout') onStdout(msg.data.text);
  });
  socket.on('devices', (msg) => {
    if (msg.type !== 'error' || !run || msg.data.sid !== run.sid) return;
    const error = msg.data;
    liveError.value = `${error.message} (${error.code})`;
    if (error.ref === 'run.start') end();
  });
}

function end(): void {
  stopCamera();
  liveState.value = 'idle';
  inFlight = null;
}

/** Starts the pipeline on a camera: `device` '' is this machine; `camera` '' this browser's. */
export async function startLive(pipeline: string, device: string, camera: string, width: number): Promise<void> {
  wire();
  reset();
  liveState.value = 'starting';
  try {
    if (!camera) await startCamera(width);
    if (!device) {
      const id = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join('');
      run = { sid: `pipeline-${id}`, local: true, browser: !camera };
      session().socket.send('playground', 'run.start', { sid: run.sid, pipeline });
      return;
    }
    pickDevice(device);
    const argv = [...LIVE_ARGV, pipeline, ...(camera ? ['--camera', camera, '--width', String(width)] : [])];
    run = { sid: '', local: false, browser: !camera };
    await startWith(argv, false);
    run.sid = deviceSid.value ?? '';
    if (!run.sid || runState.value === 'idle') { // the deploy or the start failed (notified)
      liveError.value = 'The run did not start on the device (the Device Console says why).';
      end();
    }
  } catch (err) {
    liveError.value = String(err instanceof Error ? err.message : err);
    end();
  }
}

export function stopLive(): void {
  stopCamera();
  if (!run) return;
  if (run.local) session().socket.send('playground', 'run.stop', { sid: run.sid });
  else stopDeviceRun();
}

/** One tick of the browser's camera: a frame goes when none is in flight, else it is dropped. */
function tick(width: number): void {
  if (!video || video.readyState < 2 || liveState.value !== 'running' || !run?.browser) return;
  if (inFlight) {
    liveCounts.value = { ...liveCounts.value, dropped: liveCounts.value.dropped + 1 };
    return;
  }
  const scale = Math.min(1, width / video.videoWidth);
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(video.videoWidth * scale));
  canvas.height = Math.max(1, Math.round(video.videoHeight * scale));
  canvas.getContext('2d')!.drawImage(video, 0, 0, canvas.width, canvas.height);
  const picture = canvas.toDataURL('image/jpeg', 0.85);
  const frame = nextFrame++;
  inFlight = { frame, picture };
  liveCounts.value = { ...liveCounts.value, sent: liveCounts.value.sent + 1 };
  toRun(`MNNWB_FRAME ${JSON.stringify({ frame, jpeg: picture.slice('data:image/jpeg;base64,'.length) })}\n`);
}

async function startCamera(width: number): Promise<void> {
  stream = await navigator.mediaDevices.getUserMedia({ video: true, audio: false });
  video = document.createElement('video');
  video.muted = true;
  video.playsInline = true;
  video.srcObject = stream;
  await video.play();
  timer = window.setInterval(() => tick(width), 1000 / 15);
}

function stopCamera(): void {
  if (timer !== null) window.clearInterval(timer);
  timer = null;
  stream?.getTracks().forEach((track) => track.stop());
  stream = null;
  video = null;
}
