// A pipeline evaluated on a labelled set of the project (docs/pipelines.md#evaluating-one): pick a
// folder holding a labels file and where it runs; the figure over the set, named by its metric,
// and each image's expected and read text (or label), the wrong ones first.
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorMessage } from '../../../api/client';
import { evaluatePipeline, type PipelineEvaluation } from '../../../api/pipelineEval';
import { projectFiles } from '../../../kernel/fileIndex';
import { pid } from '../../../kernel/session';
import { offerDefault } from '../../../ui/lateDefault';
import { isActive, progress, putRun, runs } from '../store';
import { DeviceSelect } from './config';

const LABELS = /(^|\/)labels\.(csv|tsv|jsonl)$/;
const METRIC_NAMES: Record<PipelineEvaluation['metric'], string> = {
  char_accuracy: 'Character accuracy', accuracy: 'Top-1 accuracy',
};

/** The folders that hold a labels file: the labelled sets a pipeline can be evaluated on. */
function labelledFolders(files: string[]): string[] {
  return files.filter((f) => LABELS.test(f)).map((f) => f.replace(LABELS, '') || '.');
}

function Samples({ evaluation }: { evaluation: PipelineEvaluation }) {
  const rows = [...evaluation.samples].sort((a, b) => a.score - b.score);
  return (
    <table class="tool-table" data-testid="evaluate-samples">
      <thead><tr><th>Input</th><th>Expected</th><th>Got</th><th class="num">Score</th><th class="num">ms</th></tr></thead>
      <tbody>
        {rows.map((s) => (
          <tr key={s.input} data-testid="evaluate-sample" data-exact={String(s.exact)} class={s.exact ? '' : 'pipeline-diverged'}>
            <td class="mono">{s.input}</td>
            <td class="mono">{s.expected}</td>
            <td class="mono">{s.got ?? <span class="form-error">{s.reason}</span>}</td>
            <td class="num mono">{s.score.toFixed(3)}</td>
            <td class="num mono">{s.ms === null ? '–' : s.ms.toFixed(1)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Figures({ evaluation }: { evaluation: PipelineEvaluation }) {
  return (
    <div class="pipeline-eval-figures" data-testid="evaluate-aggregate" data-metric={evaluation.metric}>
      <span><b>{METRIC_NAMES[evaluation.metric]}</b> <span class="mono" data-testid="evaluate-value">{evaluation.value.toFixed(4)}</span></span>
      <span>Exact <span class="mono" data-testid="evaluate-exact">{(evaluation.exact_match * 100).toFixed(1)} %</span></span>
      <span>{evaluation.count} images in {evaluation.dataset} ({evaluation.labels_file})</span>
      <span>median <span class="mono">{evaluation.median_ms.toFixed(1)} ms</span> end to end</span>
    </div>
  );
}

export function EvaluateView({ pipeline }: { pipeline: string }) {
  const [folders, setFolders] = useState<string[]>([]);
  const [dataset, setDataset] = useState('');
  const datasetField = useRef<HTMLInputElement>(null);
  const [device, setDevice] = useState('');
  const [runId, setRunId] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    projectFiles().then((all) => {
      const found = labelledFolders(all);
      setFolders(found);
      offerDefault(datasetField, setDataset, found[0] ?? '');
    }, () => setFolders([]));
  }, [pipeline]);
  const go = async () => {
    setError(null);
    try {
      const started = await evaluatePipeline(pid(), { pipeline, dataset, device_id: device || null });
      putRun(started);
      setRunId(started.id);
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  const run = runId ? runs.value[runId] : undefined;
  const busy = !!run && isActive(run);
  const evaluation = run?.status === 'succeeded' ? (run.result?.evaluation as PipelineEvaluation | undefined) : undefined;
  return (
    <div class="pipeline-eval" data-testid="pipeline-evaluate" data-status={run?.status ?? ''}>
      <form class="try-it-form" onSubmit={(e) => { e.preventDefault(); void go(); }}>
        <label class="spec-field">
          <span>Labelled folder</span>
          <input ref={datasetField} class="input mono" list="pipeline-labelled" value={dataset} size={28} data-testid="evaluate-dataset"
            onInput={(e) => setDataset((e.target as HTMLInputElement).value)} />
          <datalist id="pipeline-labelled">{folders.map((f) => <option key={f} value={f} />)}</datalist>
        </label>
        <label class="spec-field"><span>Runs on</span><DeviceSelect value={device} onChange={setDevice} testid="evaluate-device" /></label>
        <button class="btn btn-primary" type="submit" data-testid="evaluate-run" disabled={busy || !dataset}>
          {busy && run ? `Evaluating… ${progress.value[run.id]?.stage ?? ''}` : 'Evaluate'}
        </button>
      </form>
      {error && <div class="form-error" role="alert" data-testid="evaluate-error">{error}</div>}
      {run && !isActive(run) && run.status !== 'succeeded' && (
        <div class="form-error" role="alert" data-testid="evaluate-error">{run.error ?? `Ended ${run.status}`}</div>
      )}
      {evaluation && <><Figures evaluation={evaluation} /><Samples evaluation={evaluation} /></>}
    </div>
  );
}
