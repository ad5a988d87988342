// A pipeline (docs/pipelines.md) run on images of the project, here or on a paired device: the
// photo with every stage's boxes drawn, what each item was read as, each stage's time and the
// timeline of one input. "Compare…" runs two configurations on the same inputs side by side;
// "Evaluate…" scores it on a labelled set; with the input "Camera" it runs per frame of a camera.
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorMessage } from '../../../api/client';
import { cancelRun, runPipeline, type PipelineResult, type ToolRun } from '../../../api/tools';
import { projectFiles } from '../../../kernel/fileIndex';
import type { PanelProps } from '../../../kernel/panels';
import { pid } from '../../../kernel/session';
import { offerDefault } from '../../../ui/lateDefault';
import { isActive, progress, putRun, runs } from '../store';
import { CameraView } from './CameraView';
import { CompareView } from './CompareView';
import { ConfigFields, DeviceSelect, parseVariants, type RunConfig } from './config';
import { EvaluateView } from './EvaluateView';
import { InputView } from './InputView';
import '../spec/spec.css';
import './pipeline.css';

const INPUT_FILE = /\.(jpe?g|png|bmp|wav)$/i; // images, and .wav clips for an audio model's pipeline
const PLAIN: RunConfig = { device: '', variants: '' };

function RunError({ run }: { run: ToolRun }) {
  if (run.status === 'cancelled') {
    const stopped = (run.result as unknown as PipelineResult | null)?.stopped;
    return (
      <div class="muted" data-testid="pipeline-cancelled">
        Cancelled{stopped ? ` after ${stopped.done} of ${stopped.given} inputs` : ''}
      </div>
    );
  }
  return <div class="form-error" role="alert" data-testid="pipeline-error">{run.error ?? `Ended ${run.status}`}</div>;
}

/** Both runs' status as one: succeeded when both did, else the first ending otherwise. */
function pairStatus(both: (ToolRun | undefined)[]): string {
  if (both.every((r) => r?.status === 'succeeded')) return 'succeeded';
  return both.find((r) => r && !isActive(r) && r.status !== 'succeeded')?.status ?? 'running';
}

export function PipelinePanel({ params }: PanelProps) {
  const pipeline = String(params.path);
  const [files, setFiles] = useState<string[]>([]);
  const [input, setInput] = useState('');
  const inputField = useRef<HTMLInputElement>(null);
  const [onCamera, setOnCamera] = useState(false);
  const [device, setDevice] = useState('');
  const [runId, setRunId] = useState<string | null>(null);
  const [comparing, setComparing] = useState(false);
  const [evaluating, setEvaluating] = useState(false);
  const [configs, setConfigs] = useState<[RunConfig, RunConfig]>([PLAIN, PLAIN]);
  const [pair, setPair] = useState<[string, string] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    projectFiles().then((all) => {
      const images = all.filter((f) => INPUT_FILE.test(f));
      setFiles(images);
      offerDefault(inputField, setInput, images[0] ?? '');
    }, () => setFiles([]));
  }, [pipeline]);
  const start = async (config: RunConfig) => {
    const started = await runPipeline(pid(), {
      pipeline, inputs: [input], device_id: config.device || null, variants: parseVariants(config.variants),
    });
    putRun(started);
    return started.id;
  };
  const go = async () => {
    setError(null);
    setPair(null);
    try {
      setRunId(await start({ device, variants: '' }));
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  const compare = async () => {
    setError(null);
    setRunId(null);
    try {
      parseVariants(configs[0].variants);
      parseVariants(configs[1].variants);
      setPair([await start(configs[0]), await start(configs[1])]);
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  const run = runId ? runs.value[runId] : undefined;
  const both = pair ? pair.map((id) => runs.value[id]) : [];
  const busy = (!!run && isActive(run)) || both.some((r) => !r || isActive(r));
  const status = pair ? pairStatus(both) : (run?.status ?? '');
  // a run cancelled on a device keeps the inputs it did
  const shown = run?.status === 'succeeded' || (run?.status === 'cancelled' && run.result);
  const result = shown ? (run.result as unknown as PipelineResult) : null;
  const stop = () => run && cancelRun(run.id).then(putRun, (err) => setError(errorMessage(err)));
  return (
    <div class="tool-panel pipeline-panel" data-testid="pipeline-panel" data-pipeline={pipeline} data-status={status}>
      <form class="try-it-form" onSubmit={(e) => { e.preventDefault(); void go(); }}>
        <span class="mono">{pipeline}</span>
        <label class="spec-field">
          <span>Input</span>
          <select class="input" value={onCamera ? 'camera' : 'files'} data-testid="pipeline-input-kind"
            disabled={comparing} onChange={(e) => setOnCamera((e.target as HTMLSelectElement).value === 'camera')}>
            <option value="files">Files</option>
            <option value="camera">Camera</option>
          </select>
        </label>
        {!onCamera && (
          <label class="spec-field">
            <span>Image, .wav or folder</span>
            <input ref={inputField} class="input mono" list="pipeline-files" value={input} size={32} data-testid="pipeline-input-path"
              onInput={(e) => setInput((e.target as HTMLInputElement).value)} />
            <datalist id="pipeline-files">{files.map((f) => <option key={f} value={f} />)}</datalist>
          </label>
        )}
        {!comparing && <label class="spec-field"><span>Runs on</span><DeviceSelect value={device} onChange={setDevice} testid="pipeline-device" /></label>}
        {!comparing && !onCamera && (
          <button class="btn btn-primary" type="submit" data-testid="pipeline-run" disabled={busy || !input}>
            {busy && run ? `Running… ${progress.value[run.id]?.stage ?? ''}` : 'Run pipeline'}
          </button>
        )}
        {run && isActive(run) && (
          <button class="btn" type="button" data-testid="pipeline-stop" onClick={() => void stop()}>Stop</button>
        )}
        <button class="btn" type="button" data-testid="pipeline-compare-open" disabled={onCamera} onClick={() => setComparing(!comparing)}>
          {comparing ? 'Single run' : 'Compare…'}
        </button>
        <button class="btn" type="button" data-testid="pipeline-evaluate-open" aria-pressed={evaluating}
          onClick={() => setEvaluating(!evaluating)}>
          Evaluate…
        </button>
      </form>
      {onCamera && <CameraView pipeline={pipeline} device={device} />}
      {evaluating && <EvaluateView pipeline={pipeline} />}
      {comparing && (
        <form class="pipeline-compare-form" data-testid="pipeline-compare-form" onSubmit={(e) => { e.preventDefault(); void compare(); }}>
          <ConfigFields label="A" config={configs[0]} onChange={(c) => setConfigs([c, configs[1]])} />
          <ConfigFields label="B" config={configs[1]} onChange={(c) => setConfigs([configs[0], c])} />
          <button class="btn btn-primary" type="submit" data-testid="compare-run" disabled={busy || !input}>
            {busy && pair ? 'Running both…' : 'Run both'}
          </button>
        </form>
      )}
      {error && <div class="form-error" role="alert" data-testid="pipeline-error">{error}</div>}
      {run && !isActive(run) && run.status !== 'succeeded' && <RunError run={run} />}
      {both.map((r) => r && !isActive(r) && r.status !== 'succeeded' && <RunError key={r.id} run={r} />)}
      {result && (
        <div data-testid="pipeline-result">
          {result.device && <div class="muted" data-testid="pipeline-device-name">On {result.device.name}</div>}
          {result.failed.map((f) => <div key={f.input} class="form-error">{f.input}: {f.reason}</div>)}
          {result.inputs.map((r) => <InputView key={r.input} result={r} />)}
        </div>
      )}
      {status === 'succeeded' && pair && both[0] && both[1] && <CompareView a={both[0]} b={both[1]} />}
    </div>
  );
}
