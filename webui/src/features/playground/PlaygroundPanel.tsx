// The Playground panel: run the project's playground app on a device or on this machine and be
// its screen — the
// current frame with the rects and points the script drew on it, its labels, and the camera
// (this browser's or the device's own) or a photo feeding it; capture→result latency, fps and
// dropped frames.
import { useEffect, useRef } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { notify } from '../../ui/toast';
import { devices, watchDevices } from '../../kernel/devices';
import { opener } from '../../kernel/openers';
import { pickDevice, pickedDevice } from '../debug/run';
import { session } from '../../kernel/session';
import {
  cameraOn, cameraSource, canStart, captureWidth, deviceCameras, fedByDevice, labels, onThisMachine, playgroundState,
  scriptError, sendPhoto, shown, startCamera, startPlayground, stats, stopCamera, stopPlayground, wants, type Shown,
} from './playground';

const THIS_MACHINE = '__this_machine';

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
  canvas.dataset.painted = String(frame.frame);
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
        data-points={frame?.points.length ?? 0}
        data-texts={frame?.rects.map((rect) => rect.text).join(',') ?? ''} class={frame ? '' : 'empty'} />
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
    <span class="muted mono" data-testid="playground-stats" data-latency={s.latencyMs ?? ''} data-dropped={s.dropped} data-sent={s.sent} data-done={s.done}>
      {s.latencyMs === null ? 'no frame yet' : `capture→result ${s.latencyMs.toFixed(0)} ms`} · {s.fps} fps · {s.done} done · {s.dropped} dropped
    </span>
  );
}

/** Where the app runs: this machine (the server, sandboxed) or a paired device (the tab's
 * device, shared with Run and Debug). */
function TargetPicker({ disabled }: { disabled: boolean }) {
  useEffect(() => watchDevices(), []);
  const picked = onThisMachine.value ? THIS_MACHINE : pickedDevice.value ?? '';
  const list = devices.value;
  return (
    <select class="run-device" data-testid="device-picker" value={picked} disabled={disabled} title="Where the app runs"
      onChange={(ev) => {
        const value = ev.currentTarget.value;
        if (value === '__pair') {
          opener('devices')();
          ev.currentTarget.value = picked;
          return;
        }
        onThisMachine.value = value === THIS_MACHINE;
        if (!onThisMachine.value) pickDevice(value || null);
      }}>
      <option value="">Pick where to run…</option>
      <option value={THIS_MACHINE}>This machine</option>
      {pickedDevice.value && !list.some((d) => d.id === pickedDevice.value) && <option value={pickedDevice.value}>(unknown device)</option>}
      {list.map((d) => (
        <option key={d.id} value={d.id}>{d.online ? '● ' : '○ '}{d.name}{d.online ? '' : ' (offline)'}</option>
      ))}
      <option value="__pair">Manage devices…</option>
    </select>
  );
}

/** Which camera feeds the app: this browser's, or one of the picked device's own (OpenCV's). */
function SourcePicker({ disabled }: { disabled: boolean }) {
  const cameras = deviceCameras.value;
  if (!cameras.length) return null;
  const picked = cameras.includes(cameraSource.value) ? cameraSource.value : '';
  return (
    <select data-testid="playground-source" value={picked} disabled={disabled} title="Which camera feeds the app"
      onChange={(ev) => (cameraSource.value = ev.currentTarget.value)}>
      <option value="">This browser's camera</option>
      {cameras.map((name) => <option key={name} value={name}>Device camera {name}</option>)}
    </select>
  );
}

export function PlaygroundPanel() {
  const app = session().project.playground;
  const state = playgroundState.value;
  const running = state === 'running';
  const photo = useRef<HTMLInputElement>(null);
  const guard = (action: () => Promise<void>) => () => void action().catch((err) => notify(errorMessage(err)));
  return (
    <div class="playground-panel" data-testid="playground-panel" data-state={state} data-live={wants.value ? 'true' : 'false'}
      data-fed-by-device={fedByDevice.value ? 'true' : 'false'}>
      <div class="playground-toolbar">
        <strong>{app?.application_name ?? 'Playground'}</strong>
        {app?.error && <span class="form-error">{app.error}</span>}
        <TargetPicker disabled={state !== 'idle'} />
        <SourcePicker disabled={state !== 'idle'} />
        {state === 'idle'
          ? <button class="btn btn-small btn-primary" data-testid="playground-start" disabled={!canStart.value} onClick={guard(startPlayground)}>Start</button>
          : <button class="btn btn-small" data-testid="playground-stop" onClick={stopPlayground}>Stop</button>}
        <label class="muted">size <select data-testid="playground-size" value={captureWidth.value} onChange={(ev) => (captureWidth.value = Number(ev.currentTarget.value))}>
          {[160, 224, 320, 480, 640].map((w) => <option key={w} value={w}>{w}</option>)}
        </select></label>
        {running && wants.value?.camera && !fedByDevice.value && (cameraOn.value
          ? <button class="btn btn-small" data-testid="playground-camera-off" onClick={stopCamera}>Camera off</button>
          : <button class="btn btn-small" data-testid="playground-camera" onClick={guard(startCamera)}>Camera</button>)}
        {running && wants.value?.photo && !fedByDevice.value && (
          <>
            <button class="btn btn-small" data-testid="playground-photo" onClick={() => photo.current?.click()}>Photo…</button>
            <input ref={photo} type="file" accept="image/*" hidden data-testid="playground-photo-input"
              onChange={(ev) => { const file = ev.currentTarget.files?.[0]; if (file) void sendPhoto(file).catch((err) => notify(errorMessage(err))); ev.currentTarget.value = ''; }} />
          </>
        )}
        <span class="status-spacer" />
        <Stats />
      </div>
      {!canStart.value && <div class="muted">Pick where to run: this machine or a paired device. The app runs there, this tab is its screen and camera.</div>}
      {running && wants.value && !wants.value.camera && !wants.value.photo && <div class="muted">The app asked for no camera and no photo.</div>}
      {scriptError.value && <div class="form-error" data-testid="playground-error">{scriptError.value}</div>}
      <Screen />
    </div>
  );
}
