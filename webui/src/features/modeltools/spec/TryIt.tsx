// Try it: run the model on one real file of the project (a photo, a .wav, a .npy) as its spec
// says, and show the answer on the photo: top-5 labels, boxes drawn, the text read, the mask
// laid over it. Inputs nobody declared are never fed: the server refuses them by name.
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorMessage } from '../../../api/client';
import { rawUrl } from '../../../api/files';
import { startRun, type ModelSpecInfo, type TryOutput, type TryResult } from '../../../api/tools';
import { projectFiles } from '../../../kernel/fileIndex';
import { isViewer } from '../../../kernel/account';
import { pid } from '../../../kernel/session';
import { offerDefault } from '../../../ui/lateDefault';
import { isActive, progress, putRun, runs } from '../store';
import { listText, numbersOf } from './values';

const INPUT_FILE = /\.(jpe?g|png|bmp|wav|npy|npz)$/i;
const IMAGE_FILE = /\.(jpe?g|png|bmp)$/i;
const MASK_COLOURS = [[0, 0, 0, 0], [255, 216, 102, 120], [97, 175, 239, 120], [152, 195, 121, 120], [224, 108, 117, 120]];

function MaskLayer({ output }: { output: TryOutput }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const rows = output.rows ?? [];
    const el = canvas.current;
    if (!el || !rows.length) return;
    el.width = rows[0].length;
    el.height = rows.length;
    const ctx = el.getContext('2d');
    if (!ctx) return;
    const image = ctx.createImageData(el.width, el.height);
    rows.forEach((row, y) => row.forEach((cls, x) => {
      const colour = MASK_COLOURS[cls % MASK_COLOURS.length];
      image.data.set(cls === 0 ? MASK_COLOURS[0] : colour, (y * el.width + x) * 4);
    }));
    ctx.putImageData(image, 0, 0);
  }, [output]);
  return <canvas ref={canvas} data-testid="try-mask" />;
}

function Overlay({ result }: { result: TryResult }) {
  const size = result.input_file;
  const outputs = Object.values(result.outputs);
  return (
    <>
      {outputs.filter((o) => o.kind === 'mask').map((o, i) => <MaskLayer key={i} output={o} />)}
      {size && outputs.some((o) => o.kind === 'boxes') && (
        <svg viewBox={`0 0 ${size.width} ${size.height}`} preserveAspectRatio="none" data-testid="try-boxes">
          {outputs.flatMap((o) => o.boxes ?? []).map((b, i) => (
            <g key={i}>
              <rect x={b.box[0]} y={b.box[1]} width={b.box[2] - b.box[0]} height={b.box[3] - b.box[1]} />
              <text x={b.box[0] + 2} y={b.box[1] + 12}>{b.label} {b.score.toFixed(2)}</text>
            </g>
          ))}
        </svg>
      )}
    </>
  );
}

function OutputView({ name, output }: { name: string; output: TryOutput }) {
  return (
    <div class="model-card" data-testid={`try-output-${name}`} data-kind={output.kind}>
      <div><strong class="mono">{name}</strong> <span class="muted">[{output.shape.join(', ')}] · {output.kind}</span></div>
      {output.top && (
        <table class="tool-table" data-testid="try-top">
          <tbody>{output.top.map((t) => (
            <tr key={t.index}><td>{t.label}</td><td class="num">{(t.score * 100).toFixed(1)}%</td></tr>
          ))}</tbody>
        </table>
      )}
      {output.boxes && <div>{output.boxes.length} box(es) at or above the threshold</div>}
      {output.text !== undefined && <div class="try-it-text mono" data-testid="try-text">{output.text || '(nothing read)'}</div>}
      {output.classes && (
        <div>{output.classes.map((c) => `${c.label}: ${c.pixels} px`).join(' · ')}</div>
      )}
      {output.norm !== undefined && <div class="mono">length {output.length}, L2 norm {output.norm.toFixed(4)}</div>}
      {output.kind === 'tensor' && (
        <div class="mono muted">min {output.min?.toFixed(4)} · max {output.max?.toFixed(4)} · mean {output.mean?.toFixed(4)} — declare what it means in the spec</div>
      )}
      {output.error && <div class="form-error">{output.error}</div>}
    </div>
  );
}

export function TryIt({ path, spec }: { path: string; spec: ModelSpecInfo | null }) {
  const [files, setFiles] = useState<string[]>([]);
  const [input, setInput] = useState('');
  const inputField = useRef<HTMLInputElement>(null);
  const [shape, setShape] = useState('');
  const [runId, setRunId] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    projectFiles().then((all) => {
      const usable = all.filter((f) => INPUT_FILE.test(f));
      setFiles(usable);
      offerDefault(inputField, setInput, usable.find((f) => IMAGE_FILE.test(f)) ?? usable[0] ?? '');
    }, () => setFiles([]));
  }, [path]);
  const declared = spec?.declared_inputs ?? [];
  const first = spec?.spec.inputs[0];
  const dynamic = declared.length === 1 && declared[0].shape.some((d) => d <= 0);
  useEffect(() => setShape(listText(first?.default_shape)), [spec]);
  const run = runId ? runs.value[runId] : undefined;
  const busy = !!run && isActive(run);
  const go = async () => {
    setError(null);
    const body: Record<string, unknown> = { model: path, input };
    const dims = numbersOf(shape);
    if (dynamic && dims && declared[0]) body.input_shapes = { [declared[0].name]: dims };
    try {
      const started = await startRun(pid(), 'try', body);
      putRun(started);
      setRunId(started.id);
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  const result = run?.status === 'succeeded' ? (run.result as unknown as TryResult) : null;
  const stage = run && progress.value[run.id]?.stage;
  if (isViewer.value) return null;
  return (
    <div class="model-card try-it" data-testid="try-it">
      <strong>Try it</strong>
      {!spec?.exists && <div class="muted">Save the spec above first: it says how a file becomes the model's input.</div>}
      <form class="try-it-form" onSubmit={(e) => { e.preventDefault(); void go(); }}>
        <label class="spec-field">
          <span>Input file</span>
          <input ref={inputField} class="input mono" list="try-it-files" value={input} data-testid="try-input" size={32}
            placeholder="photo.jpg" onInput={(e) => setInput((e.target as HTMLInputElement).value)} />
          <datalist id="try-it-files">{files.map((f) => <option key={f} value={f} />)}</datalist>
        </label>
        {dynamic && (
          <label class="spec-field" title="The input's whole shape; its ? dims are open in the model">
            <span>Shape of {declared[0].name} [{declared[0].shape.map((d) => (d > 0 ? d : '?')).join(', ')}]</span>
            <input class="input mono" value={shape} data-testid="try-shape" onInput={(e) => setShape((e.target as HTMLInputElement).value)} />
          </label>
        )}
        <button class="btn btn-small btn-primary" type="submit" data-testid="try-run" disabled={busy || !input || !spec?.exists}>
          {busy ? `Running… ${stage ?? ''}` : 'Run'}
        </button>
      </form>
      {(error || (run && !busy && run.status !== 'succeeded')) && (
        <div class="form-error" role="alert" data-testid="try-error">{error ?? run?.error ?? `Ended ${run?.status}`}</div>
      )}
      {result && (
        <div class="try-it-view" data-testid="try-result">
          {IMAGE_FILE.test(result.input) && (
            <div class="try-it-image">
              <img src={rawUrl(pid(), result.input)} alt={result.input} data-testid="try-image" />
              <Overlay result={result} />
            </div>
          )}
          <div class="try-it-outputs">
            <div class="muted mono" data-testid="try-meta">
              {result.input} · {Object.entries(result.input_shapes).map(([n, s]) => `${n} [${s.join(', ')}]`).join(' ')} · {result.latency_ms.toFixed(1)} ms
            </div>
            {Object.entries(result.outputs).map(([name, out]) => <OutputView key={name} name={name} output={out} />)}
          </div>
        </div>
      )}
    </div>
  );
}
