// The Playground panel: run the project's playground app on a device and be its screen — the
// current frame with the rects and points the script drew on it, its labels, and the camera
// (this browser's) or a photo feeding it; capture→result latency, fps and dropped frames.
import { useEffect, useRef } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { notify } from '../../ui/toast';
import { DevicePicker } from '../debug/RunToolbar';
import { pickedDevice, runState } from '../debug/run';
import { session } from '../workbench/session';
import {
  cameraOn, captureWidth, labels, scriptError, sendPhoto, shown, startCamera, startPlayground, stats, stopCamera,
  stopPlayground, wants, type Shown,
} from './playground';

function paint(canvas: HTMLCanvasElement, frame: Shown): void {
  canvas.width = frame.picture.width;
  canvas.height = frame.picture.height;
  const ctx = canvas.getContext('2d')!;
  ctx.drawImage(frame.picture, 0, 0);
  ctx.font = '10px sans-serif';
  for (const rect of frame.rects) {
    const [x, y, w, h] = rect.box;
    ctx.strokeStyle = rect.color;
    ctx.lineWidth = rect.width;
    ctx.strokeRect(x, y, w, h);
    ctx.fillStyle = rect.color;
    if (rect.text) ctx.fillText(rect.text, x + 2, y + 12);
  }
  for (const point of frame.points) {
    ctx.fillStyle = point.color;
    ctx.fillRect(point.at[0] - point.width / 2, point.at[1] - point.width / 2, point.width, point.width);
  }
}

function Screen() {
  const canvas = useRef<HTMLCanvasElement>(null);
  const frame = shown.value;
  useEffect(() => {
    if (canvas.current && frame) paint(canvas.current, frame);
  }, [frame]);
  const entries = Object.entries(labels.value).sort(([a], [b]) => Number(a) - Number(b));
  return (
    <div class="playground-screen">
      <canvas ref={canvas} data-testid="playground-canvas" data-frame={frame?.frame ?? ''} data-rects={frame?.rects.length ?? 0}
        data-points={frame?.points.length ?? 0} class={frame ? '' : 'empty'} />
      <ol class="playground-labels" data-testid="playground-labels">
        {entries.map(([index, text]) => <li key={index} data-testid="playground-label" data-index={index}>{text}</li>)}
      </ol>
      {frame && frame.images.length > 0 && <div class="muted">drawImage: {frame.images.join(', ')}</div>}
    </div>
  );
}

function Stats() {
  const s = stats.value;
  return (
    <span class="muted mono" data-testid="playground-stats" data-latency={s.latencyMs ?? ''} data-dropped={s.dropped}>
      {s.latencyMs === null ? 'no frame yet' : `capture→result ${s.latencyMs.toFixed(0)} ms`} · {s.fps} fps · {s.done} done · {s.dropped} dropped
    </span>
  );
}

export function PlaygroundPanel() {
  const app = session().project.playground;
  const state = runState.value;
  const running = state === 'running';
  const photo = useRef<HTMLInputElement>(null);
  const guard = (action: () => Promise<void>) => () => void action().catch((err) => notify(errorMessage(err)));
  return (
    <div class="playground-panel" data-testid="playground-panel" data-state={state} data-live={wants.value ? 'true' : 'false'}>
      <div class="playground-toolbar">
        <strong>{app?.application_name ?? 'Playground'}</strong>
        {app?.error && <span class="form-error">{app.error}</span>}
        <DevicePicker />
        {state === 'idle'
          ? <button class="btn btn-small btn-primary" data-testid="playground-start" disabled={!pickedDevice.value} onClick={guard(startPlayground)}>Start</button>
          : <button class="btn btn-small" data-testid="playground-stop" onClick={stopPlayground}>Stop</button>}
        <label class="muted">size <select data-testid="playground-size" value={captureWidth.value} onChange={(ev) => (captureWidth.value = Number(ev.currentTarget.value))}>
          {[160, 224, 320, 480, 640].map((w) => <option key={w} value={w}>{w}</option>)}
        </select></label>
        {running && wants.value?.camera && (cameraOn.value
          ? <button class="btn btn-small" data-testid="playground-camera-off" onClick={stopCamera}>Camera off</button>
          : <button class="btn btn-small" data-testid="playground-camera" onClick={guard(startCamera)}>Camera</button>)}
        {running && wants.value?.photo && (
          <>
            <button class="btn btn-small" data-testid="playground-photo" onClick={() => photo.current?.click()}>Photo…</button>
            <input ref={photo} type="file" accept="image/*" hidden data-testid="playground-photo-input"
              onChange={(ev) => { const file = ev.currentTarget.files?.[0]; if (file) void sendPhoto(file).catch((err) => notify(errorMessage(err))); ev.currentTarget.value = ''; }} />
          </>
        )}
        <span class="status-spacer" />
        <Stats />
      </div>
      {!pickedDevice.value && <div class="muted">Pick a device to run on: the app runs there, this tab is its screen and camera.</div>}
      {running && wants.value && !wants.value.camera && !wants.value.photo && <div class="muted">The app asked for no camera and no photo.</div>}
      {scriptError.value && <div class="form-error" data-testid="playground-error">{scriptError.value}</div>}
      <Screen />
    </div>
  );
}
