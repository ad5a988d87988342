// Evaluate (docs/datasets.md): models of the project — a source model and its MNN variants — on
// the same samples of a dataset in one run. The form (models, dataset, split, limit, metric), Run
// and Cancel with progress, the result, the log and the earlier evaluate runs on this dataset.
// The form and the run shown are kept in the panel's parameters.
import { computed } from '@preact/signals';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { listDatasets, startEvaluate, type DatasetSummary, type EvaluateRequest, type EvaluateResult } from '../../api/datasets';
import { cancelRun, type ToolRun } from '../../api/tools';
import { notify } from '../../ui/toast';
import { formatDuration } from '../modeltools/format';
import { projectPaths } from '../modeltools/paths';
import { filesVersion } from '../../kernel/fileIndex';
import { RunHistory } from '../modeltools/RunHistory';
import { RunLog } from '../modeltools/RunLog';
import { StatusBadge } from '../modeltools/StatusBadge';
import { fetchRun, history, isActive, loadHistory, progress, putRun, runs } from '../modeltools/store';
import { isViewer } from '../../kernel/account';
import type { PanelProps } from '../../kernel/panels';
import { pid } from '../../kernel/session';
import { EvaluateView } from './EvaluateResult';
import type { EvaluateParams } from './open';

const EVALUATED = ['.onnx', '.tflite', '.mnn'];

interface Form {
  dataset: string;
  models: string[];
  split: string;
  limit: string;
  metric: string;
}

/** The evaluate runs on one dataset, newest first; the project's history is loaded once. */
function useDatasetRuns(dataset: string): ToolRun[] {
  useEffect(() => {
    if (!history.value) void loadHistory();
  }, []);
  const list = useMemo(() => computed(() => (history.value ?? []).filter((r) => r.tool === 'evaluate' && r.args.dataset === dataset)), [dataset]);
  return list.value;
}

function formOf(params: EvaluateParams & { form?: Form }): Form {
  return params.form ?? { dataset: params.dataset, models: params.models ?? [], split: '', limit: '', metric: '' };
}

function fromRun(run: ToolRun): Form {
  const args = run.args;
  const text = (value: unknown) => (value === undefined || value === null ? '' : String(value));
  return {
    dataset: text(args.dataset),
    models: Array.isArray(args.models) ? args.models.map(String) : [],
    split: text(args.split),
    limit: text(args.limit),
    metric: text(args.metric),
  };
}

function body(form: Form): EvaluateRequest {
  const request: EvaluateRequest = { models: form.models, dataset: form.dataset };
  if (form.split) request.split = form.split;
  if (form.metric.trim()) request.metric = form.metric.trim();
  const limit = Number(form.limit);
  if (form.limit.trim() && Number.isFinite(limit)) request.limit = limit;
  return request;
}

function ModelPicker({ choices, form, disabled, onChange }: { choices: string[]; form: Form; disabled: boolean; onChange: (models: string[]) => void }) {
  // in the order checked: the first is the baseline the others' drop is measured from
  const toggle = (path: string, on: boolean) => onChange(on ? [...form.models, path] : form.models.filter((m) => m !== path));
  const known = [...form.models.filter((m) => !choices.includes(m)), ...choices];
  return (
    <fieldset class="evaluate-models" data-testid="evaluate-models-picker" disabled={disabled}>
      <legend>Models <em class="muted">· the first checked is the baseline</em></legend>
      {known.length === 0 && <div class="muted">No .onnx, .tflite or .mnn model in the project.</div>}
      {known.map((path) => (
        <label key={path} class="tool-check">
          <input type="checkbox" data-testid="evaluate-model-choice" data-model={path} checked={form.models.includes(path)}
            onChange={(ev) => toggle(path, ev.currentTarget.checked)} />
          <span class="mono">{path}</span>
          {form.models.indexOf(path) >= 0 && <span class="muted">#{form.models.indexOf(path) + 1}</span>}
        </label>
      ))}
    </fieldset>
  );
}

export function EvaluatePanel({ api, params: raw }: PanelProps) {
  const params = raw as unknown as EvaluateParams & { form?: Form };
  const [form, setForm] = useState<Form>(() => formOf(params));
  const [choices, setChoices] = useState<string[]>([]);
  const [datasets, setDatasets] = useState<DatasetSummary[]>([]);
  const [picked, setPicked] = useState<string | undefined>(params.runId);
  const [starting, setStarting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const past = useDatasetRuns(form.dataset);
  const update = (next: Form) => {
    setForm(next);
    api.updateParameters({ form: next });
  };
  // the models and datasets to choose from, read again when files come or go
  const filesChanged = filesVersion.value;
  useEffect(() => {
    let live = true;
    void projectPaths().then((found) => live && setChoices(found.models.filter((m) => EVALUATED.some((ext) => m.toLowerCase().endsWith(ext)))));
    listDatasets(pid()).then((found) => live && setDatasets(found), () => undefined);
    return () => void (live = false);
  }, [filesChanged]);
  useEffect(() => {
    const sub = api.onDidParametersChange((next) => {
      const changed = next as Partial<EvaluateParams>;
      if (changed.runId) setPicked(changed.runId);
      if (changed.models) setForm((before) => ({ ...before, models: changed.models ?? before.models }));
    });
    return () => sub.dispose();
  }, []);
  const runId = picked ?? past[0]?.id;
  useEffect(() => {
    if (runId && !runs.value[runId]) fetchRun(runId).catch((err) => setError(errorMessage(err)));
  }, [runId]);
  const run = runId ? runs.value[runId] ?? null : null;
  const active = run ? isActive(run) : false;
  // A run picked (or the newest, on first show) fills the form with its arguments, unless the
  // form was edited and kept in the panel's parameters.
  const keepSaved = useRef(Boolean(params.form));
  useEffect(() => {
    if (!run) return;
    if (keepSaved.current) keepSaved.current = false;
    else update(fromRun(run));
  }, [run?.id]);
  const dataset = datasets.find((d) => d.path === form.dataset);

  async function start(): Promise<void> {
    setStarting(true);
    setError(null);
    try {
      const started = await startEvaluate(pid(), body(form));
      putRun(started);
      setPicked(started.id);
      api.updateParameters({ runId: started.id });
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setStarting(false);
    }
  }
  const cancel = () => run && cancelRun(run.id).then(putRun, (err) => notify(errorMessage(err)));
  const event = run ? progress.value[run.id] : undefined;
  const result = run?.status === 'succeeded' ? (run.result as unknown as EvaluateResult) : null;
  return (
    <div class="tool-panel" data-testid="evaluate-panel" data-dataset={form.dataset} data-run={run?.id ?? ''} data-status={run?.status ?? ''}>
      <div class="tool-header">
        <span class="tool-title">Evaluate</span>
        <span class="mono tool-model" title={form.dataset}>{form.dataset}</span>
        {run && <StatusBadge status={run.status} />}
      </div>
      <div class="tool-body">
        <aside class="tool-side">
          <div class="tool-form">
            <label class="field tool-field">
              <span>Dataset</span>
              <select class="mono" data-testid="evaluate-dataset" value={form.dataset} disabled={active}
                onChange={(ev) => update({ ...form, dataset: ev.currentTarget.value, split: '' })}>
                {!dataset && <option value={form.dataset}>{form.dataset}</option>}
                {datasets.filter((d) => !d.error).map((d) => <option key={d.path} value={d.path}>{d.path}</option>)}
              </select>
            </label>
            <ModelPicker choices={choices} form={form} disabled={active} onChange={(models) => update({ ...form, models })} />
            <label class="field tool-field">
              <span>Split</span>
              <select data-testid="evaluate-split" value={form.split} disabled={active} onChange={(ev) => update({ ...form, split: ev.currentTarget.value })}>
                <option value="">{dataset?.eval_split ? `default (${dataset.eval_split})` : 'default (every sample)'}</option>
                {(dataset?.splits ?? []).map((s) => <option key={s} value={s}>{s}</option>)}
              </select>
            </label>
            <label class="field tool-field">
              <span>Limit <em class="muted">· samples, classes in turn</em></span>
              <input data-testid="evaluate-limit" inputMode="numeric" placeholder="all" value={form.limit} disabled={active}
                onInput={(ev) => update({ ...form, limit: ev.currentTarget.value })} />
            </label>
            <details class="tool-more">
              <summary>More options</summary>
              <label class="field tool-field">
                <span>Metric <em class="muted">· accuracy, map50 or a .py script</em></span>
                <input class="mono" data-testid="evaluate-metric" placeholder={dataset?.task === 'detection' ? 'map50' : 'accuracy'} value={form.metric}
                  disabled={active} onInput={(ev) => update({ ...form, metric: ev.currentTarget.value })} />
              </label>
            </details>
          </div>
          <div class="tool-actions">
            {active && run ? (
              <>
                <button class="btn" data-testid="evaluate-cancel" onClick={() => void cancel()}>Cancel</button>
                <div class="tool-progress" data-testid="tool-progress">
                  <progress max={1} value={run.status === 'queued' ? 0 : event?.fraction ?? undefined} />
                  <span class="muted">{run.status === 'queued' ? 'Waiting for a free worker…' : event?.stage ?? 'Starting…'}</span>
                </div>
              </>
            ) : isViewer.value ? <span class="muted">Viewers cannot run tools.</span> : (
              <button class="btn btn-primary" data-testid="evaluate-run" disabled={starting || form.models.length === 0} onClick={() => void start()}>
                {run ? 'Run again' : 'Run'}
              </button>
            )}
          </div>
          {error && <div class="form-error" data-testid="evaluate-start-error">{error}</div>}
          <RunHistory runs={past} shown={run?.id} onPick={(id) => { setPicked(id); api.updateParameters({ runId: id }); }} />
        </aside>
        <section class="tool-main" data-testid="tool-main">
          {!run && <div class="tool-empty muted">Check the models to compare (a source model and its MNN variants) and press Run.</div>}
          {run && active && <div class="tool-empty muted">Running…</div>}
          {run && !active && run.status !== 'succeeded' && <div class="form-error tool-error" data-testid="tool-error">{run.error ?? `The run ended ${run.status}.`}</div>}
          {run && result && <div class="tool-done muted">Finished in {formatDuration(run.created_at, run.finished_at)}</div>}
          {result && <EvaluateView result={result} />}
          {run && <RunLog key={run.id} run={run} />}
        </section>
      </div>
    </div>
  );
}
