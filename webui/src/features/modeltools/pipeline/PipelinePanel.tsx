// A pipeline (docs/pipelines.md) run on images of the project: the photo with every stage's
// boxes drawn, what each item was read as, each stage's time and the timeline of one input.
import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../../api/client';
import { rawUrl } from '../../../api/files';
import { runPipeline, type PipelineInputResult, type PipelineResult, type PipelineStage } from '../../../api/tools';
import { projectFiles } from '../../quickopen/fileIndex';
import type { PanelProps } from '../../workbench/panels';
import { pid } from '../../workbench/session';
import { isActive, progress, putRun, runs } from '../store';
import '../spec/spec.css';
import './pipeline.css';

const IMAGE = /\.(jpe?g|png|bmp)$/i;

type Item = Record<string, unknown> & { outputs?: Record<string, Record<string, unknown>>; boxes?: Box[] };
interface Box { box: number[]; score: number; label: string }

function boxesOf(stages: PipelineStage[]): Box[] {
  const last = [...stages].reverse().find((s) => s.items.some((i) => (i as Item).boxes));
  return last ? last.items.flatMap((i) => (i as Item).boxes ?? []) : [];
}

/** What the last model stage read per item: a text, or a top label. */
function readings(stage: PipelineStage | undefined): string[] {
  if (!stage) return [];
  return stage.items.map((raw) => {
    const outputs = Object.values((raw as Item).outputs ?? {});
    const text = outputs.find((o) => o.kind === 'text');
    if (text) return String(text.text);
    const top = outputs.find((o) => o.kind === 'classes');
    const first = (top?.top as { label: string; score: number }[] | undefined)?.[0];
    return first ? `${first.label} ${(first.score * 100).toFixed(0)}%` : '';
  });
}

function InputView({ result }: { result: PipelineInputResult }) {
  const boxes = boxesOf(result.stages);
  const models = result.stages.filter((s) => s.kind === 'model');
  const read = readings(models[models.length - 1]);
  const total = Math.max(result.ms, 1e-6);
  return (
    <div class="pipeline-input" data-testid="pipeline-input" data-input={result.input}>
      <div class="try-it-view">
        <div class="try-it-image">
          <img src={rawUrl(pid(), result.input)} alt={result.input} data-testid="pipeline-image" />
          <svg viewBox={`0 0 ${result.image.width} ${result.image.height}`} preserveAspectRatio="none" data-testid="pipeline-boxes">
            {boxes.map((b, i) => (
              <g key={i} data-testid="pipeline-box">
                <rect x={b.box[0]} y={b.box[1]} width={b.box[2] - b.box[0]} height={b.box[3] - b.box[1]} />
                {read.length === boxes.length && <text x={b.box[0]} y={b.box[1] - 2}>{read[i]}</text>}
              </g>
            ))}
          </svg>
        </div>
        <div class="try-it-outputs">
          <div class="mono" data-testid="pipeline-total">{result.input} · {result.ms.toFixed(1)} ms end to end · {boxes.length} box(es)</div>
          <table class="tool-table" data-testid="pipeline-stages">
            <thead><tr><th>Stage</th><th>Kind</th><th class="num">Items</th><th class="num">ms</th><th>Share</th></tr></thead>
            <tbody>{result.stages.map((s) => (
              <tr key={s.id} data-testid="pipeline-stage" data-stage={s.id}>
                <td class="mono">{s.id}</td><td class="muted">{s.kind}</td><td class="num">{s.items.length}</td>
                <td class="num mono">{s.ms.toFixed(2)}</td>
                <td><div class="pipeline-bar" style={{ width: `${Math.min(100, (100 * s.ms) / total)}%` }} /></td>
              </tr>
            ))}</tbody>
          </table>
          {read.length > 0 && (
            <div data-testid="pipeline-readings" class="mono">Read: {read.filter(Boolean).join(' · ') || '(nothing)'}</div>
          )}
        </div>
      </div>
      <div class="pipeline-timeline" data-testid="pipeline-timeline" title="Each bar: one stage on one item, from the input's start">
        {result.timeline.map((t, i) => (
          <div key={i} class={`pipeline-span stage-${result.stages.findIndex((s) => s.id === t.stage) % 6}`}
            style={{ left: `${(100 * t.start_ms) / total}%`, width: `${Math.max(0.3, (100 * (t.end_ms - t.start_ms)) / total)}%` }}
            title={`${t.stage}${t.item !== null ? ` #${t.item}` : ''}: ${(t.end_ms - t.start_ms).toFixed(2)} ms`} />
        ))}
      </div>
    </div>
  );
}

export function PipelinePanel({ params }: PanelProps) {
  const pipeline = String(params.path);
  const [files, setFiles] = useState<string[]>([]);
  const [input, setInput] = useState('');
  const [runId, setRunId] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    projectFiles().then((all) => {
      const images = all.filter((f) => IMAGE.test(f));
      setFiles(images);
      setInput((current) => current || images[0] || '');
    }, () => setFiles([]));
  }, [pipeline]);
  const run = runId ? runs.value[runId] : undefined;
  const busy = !!run && isActive(run);
  const go = async () => {
    setError(null);
    try {
      const started = await runPipeline(pid(), pipeline, [input]);
      putRun(started);
      setRunId(started.id);
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  const result = run?.status === 'succeeded' ? (run.result as unknown as PipelineResult) : null;
  return (
    <div class="tool-panel pipeline-panel" data-testid="pipeline-panel" data-pipeline={pipeline} data-status={run?.status ?? ''}>
      <form class="try-it-form" onSubmit={(e) => { e.preventDefault(); void go(); }}>
        <span class="mono">{pipeline}</span>
        <label class="spec-field">
          <span>Image or folder</span>
          <input class="input mono" list="pipeline-files" value={input} size={32} data-testid="pipeline-input-path"
            onInput={(e) => setInput((e.target as HTMLInputElement).value)} />
          <datalist id="pipeline-files">{files.map((f) => <option key={f} value={f} />)}</datalist>
        </label>
        <button class="btn btn-primary" type="submit" data-testid="pipeline-run" disabled={busy || !input}>
          {busy ? `Running… ${progress.value[run.id]?.stage ?? ''}` : 'Run pipeline'}
        </button>
      </form>
      {(error || (run && !busy && run.status !== 'succeeded')) && (
        <div class="form-error" role="alert" data-testid="pipeline-error">{error ?? run?.error ?? `Ended ${run?.status}`}</div>
      )}
      {result && (
        <div data-testid="pipeline-result">
          {result.failed.map((f) => <div key={f.input} class="form-error">{f.input}: {f.reason}</div>)}
          {result.inputs.map((r) => <InputView key={r.input} result={r} />)}
        </div>
      )}
    </div>
  );
}
