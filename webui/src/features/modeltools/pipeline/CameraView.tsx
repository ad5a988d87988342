// A pipeline run on a camera (docs/pipelines.md, "On a camera"): this browser's camera or one of
// the picked device's own, the last frame's stages drawn as a photo's are, and the figures over the
// frames so far — each stage's and the end-to-end median and p90, frames done and dropped.
import { useEffect, useState } from 'preact/hooks';
import { devices } from '../../../kernel/devices';
import { liveCounts, liveError, liveSource, liveState, liveSummary, shownFrame, startLive, stopLive } from './camera';
import { InputView } from './InputView';

const WIDTHS = [160, 320, 480, 640];

function ms(value: number | undefined): string {
  return value === undefined ? '–' : value.toFixed(1);
}

function Figures() {
  const summary = liveSummary.value;
  const counts = liveCounts.value;
  return (
    <div class="pipeline-live-figures" data-testid="pipeline-live-figures">
      <div class="mono">
        <span data-testid="pipeline-live-done" data-count={counts.done}>{counts.done} frame(s) done</span>
        {' · '}<span data-testid="pipeline-live-dropped" data-count={counts.dropped}>{counts.dropped} dropped (one in flight)</span>
        {summary && <span data-testid="pipeline-live-e2e"> · end to end median {ms(summary.end_to_end.median_ms)} ms, p90 {ms(summary.end_to_end.p90_ms)} ms</span>}
        {liveSource.value && <span class="muted"> · {liveSource.value}</span>}
      </div>
      {summary && (
        <table class="tool-table" data-testid="pipeline-live-stages">
          <thead><tr><th>Stage</th><th class="num">median ms</th><th class="num">p90 ms</th></tr></thead>
          <tbody>{Object.entries(summary.stages).map(([id, f]) => (
            <tr key={id} data-testid="pipeline-live-stage" data-stage={id}>
              <td class="mono">{id}</td><td class="num mono">{ms(f.median_ms)}</td><td class="num mono">{ms(f.p90_ms)}</td>
            </tr>
          ))}</tbody>
        </table>
      )}
    </div>
  );
}

export function CameraView({ pipeline, device }: { pipeline: string; device: string }) {
  const [camera, setCamera] = useState('');
  const [width, setWidth] = useState(320);
  const picked = devices.value.find((d) => d.id === device);
  const own = picked?.info.cameras ?? [];
  useEffect(() => setCamera(''), [device]);
  useEffect(() => () => stopLive(), []);
  const state = liveState.value;
  const frame = shownFrame.value;
  return (
    <div class="pipeline-live" data-testid="pipeline-camera" data-state={state}>
      <div class="try-it-form">
        <label class="spec-field"><span>Camera</span>
          <select class="input" value={camera} data-testid="pipeline-camera-source" disabled={state !== 'idle'}
            onChange={(e) => setCamera((e.target as HTMLSelectElement).value)}>
            <option value="">This browser's camera</option>
            {own.map((c) => <option key={c} value={c}>Device camera {c}</option>)}
          </select>
        </label>
        <label class="spec-field"><span>Width</span>
          <select class="input" value={String(width)} data-testid="pipeline-camera-width" disabled={state !== 'idle'}
            onChange={(e) => setWidth(Number((e.target as HTMLSelectElement).value))}>
            {WIDTHS.map((w) => <option key={w} value={String(w)}>{w} px</option>)}
          </select>
        </label>
        {state === 'idle' ? (
          <button class="btn btn-primary" type="button" data-testid="pipeline-camera-run"
            onClick={() => void startLive(pipeline, device, camera, width)}>Run on the camera</button>
        ) : (
          <button class="btn" type="button" data-testid="pipeline-camera-stop" onClick={stopLive}>
            {state === 'starting' ? 'Starting… Stop' : 'Stop'}
          </button>
        )}
      </div>
      {picked && own.length === 0 && (
        <div class="muted" data-testid="pipeline-camera-none">
          {picked.name} has no camera of its own (its agent reports none): this browser's camera feeds the pipeline there.
        </div>
      )}
      {liveError.value && <div class="form-error" role="alert" data-testid="pipeline-camera-error">{liveError.value}</div>}
      <Figures />
      {frame && <InputView result={frame.result} picture={frame.picture} />}
    </div>
  );
}
