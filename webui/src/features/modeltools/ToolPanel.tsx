// One tool on one model in a dock panel: its form, Run / Cancel with progress, the result, the log
// and the panel's earlier runs. A new run replaces the one shown; the form and the run shown are
// kept in the panel's parameters, so a reload finds them as they were.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, errorMessage } from '../../api/client';
import { cancelRun, startRun, type ToolName, type ToolRun } from '../../api/tools';
import { notify } from '../../ui/toast';
import { isViewer } from '../../kernel/account';
import type { PanelProps } from '../../kernel/panels';
import { pid } from '../../kernel/session';
import { buildArgs, initialValues, type FieldValue, type FormValues } from './fields';
import { openInNewTab, openRuns, TOOL_TITLES, type ToolPanelParams } from './open';
import { RunLog } from './RunLog';
import { RunResult } from './RunResult';
import { usePanelRuns, useShownRunId, sourceOf } from './panelRuns';
import { RunHistory } from './RunHistory';
import { fetchRun, history, isActive, progress, putRun, runs as liveRuns } from './store';
import { ShapeFields, type ShapeRefusal } from './ShapeFields';
import { shapesOf, shapeValues } from './shapes';
import { ToolForm } from './ToolForm';
import { StatusBadge } from './StatusBadge';

interface Runner {
  run: ToolRun | null;
  runs: ToolRun[];
  pick: (id: string) => void;
  loadError: string | null;
  starting: boolean;
  startError: string | null;
  refusal: ShapeRefusal | null;
  start: (values: FormValues) => Promise<void>;
}

/** The tools that run the model, so take `input_shapes` (convert only for a static model). */
const takesShapes = (tool: ToolName, values: FormValues): boolean =>
  tool === 'compare' || tool === 'benchmark' || tool === 'quantize' || (tool === 'convert' && Boolean(values.static));

/** A refusal that names the input whose shape is missing or wrong, shown beside its field. */
function shapeRefusal(err: unknown): ShapeRefusal | null {
  const named = err instanceof ApiError && err.code.startsWith('input_shape_') && typeof err.body.input === 'string';
  return named ? { input: String(err.body.input), detail: err.message } : null;
}

/** The run the panel shows (remembered in the panel's parameters), and starting a new one. */
function useRunner(api: PanelProps['api'], params: ToolPanelParams): Runner {
  const runs = usePanelRuns(params.tool, params.model);
  const [runId, pick] = useShownRunId(api, params, runs);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);
  const [startError, setStartError] = useState<string | null>(null);
  const [refusal, setRefusal] = useState<ShapeRefusal | null>(null);
  useEffect(() => {
    setLoadError(null);
    if (runId && !runs.some((r) => r.id === runId) && !liveRuns.value[runId]) fetchRun(runId).catch((err) => setLoadError(errorMessage(err)));
  }, [runId]);

  async function start(values: FormValues): Promise<void> {
    setStarting(true);
    setStartError(null);
    setRefusal(null);
    try {
      const args = buildArgs(params.tool, values);
      if (takesShapes(params.tool, values)) args.input_shapes = shapesOf(values);
      const started = await startRun(pid(), params.tool, args);
      putRun(started);
      pick(started.id);
      api.updateParameters({ autorun: false });
    } catch (err) {
      const named = shapeRefusal(err);
      if (named) setRefusal(named);
      else setStartError(errorMessage(err));
    } finally {
      setStarting(false);
    }
  }

  const run = runId ? liveRuns.value[runId] ?? null : null;
  return { run, runs, pick, loadError, starting, startError, refusal, start };
}

function Progress({ run }: { run: ToolRun }) {
  const event = progress.value[run.id];
  const fraction = run.status === 'queued' ? 0 : event?.fraction ?? 0;
  return (
    <div class="tool-progress" data-testid="tool-progress">
      <progress max={1} value={run.status === 'running' && !event ? undefined : fraction} />
      <span class="muted">{run.status === 'queued' ? 'Waiting for a free worker…' : event?.stage ?? 'Starting…'}</span>
    </div>
  );
}

function Header({ params, run, onMove }: { params: ToolPanelParams; run: ToolRun | null; onMove: () => void }) {
  return (
    <div class="tool-header">
      <span class="tool-title">{TOOL_TITLES[params.tool]}</span>
      <span class="mono tool-model" title={params.model}>{params.model}</span>
      {run && <StatusBadge status={run.status} />}
      <span class="status-spacer" />
      <button class="icon-btn" data-testid="tool-history" title="Tool runs of this project" aria-label="Tool runs" onClick={openRuns}>◷</button>
      <button class="icon-btn" data-testid="tool-new-tab" title="Move to a new browser tab" aria-label="Open in new tab" onClick={onMove}>↗</button>
    </div>
  );
}

function Actions({ runner, values }: { runner: Runner; values: FormValues }) {
  const { run } = runner;
  const cancel = () => run && cancelRun(run.id).then(putRun, (err) => notify(errorMessage(err)));
  if (run && isActive(run)) {
    return (
      <div class="tool-actions">
        <button class="btn" data-testid="tool-cancel" onClick={() => void cancel()}>Cancel</button>
        <Progress run={run} />
      </div>
    );
  }
  if (isViewer.value) return <div class="tool-actions muted" data-testid="tool-viewer">Viewers cannot run tools.</div>;
  return (
    <div class="tool-actions">
      <button class="btn btn-primary" data-testid="tool-run" disabled={runner.starting} onClick={() => void runner.start(values)}>
        {run ? 'Run again' : 'Run'}
      </button>
    </div>
  );
}

/** The form: as last edited (kept in the panel's parameters), or the arguments of a run picked. */
function useForm(api: PanelProps['api'], params: ToolPanelParams, run: ToolRun | null) {
  const [values, setValues] = useState<FormValues>(() => ({
    ...initialValues(params.tool, { model: params.model, reference: params.reference }),
    ...params.values,
  }));
  const keepSaved = useRef(Boolean(params.values));
  const update = (next: FormValues) => {
    setValues(next);
    api.updateParameters({ values: next });
  };
  useEffect(() => {
    if (!run) return;
    if (keepSaved.current) keepSaved.current = false;
    else update({ ...initialValues(params.tool, run.args), ...shapeValues(run.args) });
  }, [run?.id]);
  useEffect(() => {
    // Compare's reference defaults to the model this one was converted from.
    const source = params.tool === 'compare' && !values.reference ? sourceOf(params.model) : undefined;
    if (source) update({ ...values, reference: source });
  }, [history.value]);
  // From the newest values: the shape fields may fill several keys in one go.
  const change = (key: string, value: FieldValue) => setValues((before) => {
    const next = { ...before, [key]: value };
    api.updateParameters({ values: next });
    return next;
  });
  return { values, change };
}

export function ToolPanel({ api, params: raw }: PanelProps) {
  const params = raw as unknown as ToolPanelParams;
  const runner = useRunner(api, params);
  const { run } = runner;
  const { values, change } = useForm(api, params, run);
  useEffect(() => {
    if (params.autorun && !params.runId) void runner.start(values);
  }, []);

  function moveToNewTab(): void {
    openInNewTab({ ...params, runId: run?.id });
    api.close();
  }

  const locked = (run ? isActive(run) : false) || runner.starting;
  return (
    <div class="tool-panel" data-testid="tool-panel" data-tool={params.tool} data-model={params.model} data-run={run?.id ?? ''} data-status={run?.status ?? ''}>
      <Header params={params} run={run} onMove={moveToNewTab} />
      <div class="tool-body">
        <aside class="tool-side">
          <ToolForm tool={params.tool} values={values} disabled={locked} onChange={change} />
          {takesShapes(params.tool, values) && (
            <ShapeFields model={params.model} values={values} refusal={runner.refusal} disabled={locked} onChange={change} />
          )}
          <Actions runner={runner} values={values} />
          {runner.startError && <div class="form-error" data-testid="tool-start-error">{runner.startError}</div>}
          <RunHistory runs={runner.runs} shown={run?.id} onPick={runner.pick} />
        </aside>
        <section class="tool-main" data-testid="tool-main">
          {runner.loadError && <div class="form-error">{runner.loadError}</div>}
          {!run && !runner.loadError && <div class="tool-empty muted">Set the options and press Run. Results appear here.</div>}
          {run && <RunResult run={run} />}
          {run && <RunLog key={run.id} run={run} />}
        </section>
      </div>
    </div>
  );
}
