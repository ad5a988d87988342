// One tool in a dock panel: its form, Run / Cancel with progress, the result and the log. A new
// run replaces the one shown; the panel remembers the run it shows across reloads.
import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { cancelRun, startRun, type ToolRun } from '../../api/tools';
import { notify } from '../../ui/toast';
import type { PanelProps } from '../workbench/panels';
import { pid } from '../workbench/session';
import { buildArgs, initialValues, type FieldValue, type FormValues } from './fields';
import { baseName, openInNewTab, openRuns, TOOL_TITLES, type ToolPanelParams } from './open';
import { RunLog } from './RunLog';
import { RunResult } from './RunResult';
import { fetchRun, isActive, progress, putRun, runs } from './store';
import { ToolForm } from './ToolForm';
import { StatusBadge } from './StatusBadge';

interface Runner {
  run: ToolRun | null;
  loadError: string | null;
  starting: boolean;
  startError: string | null;
  start: (values: FormValues) => Promise<void>;
}

/** The run the panel shows, and starting a new one (remembered in the panel's parameters). */
function useRunner(api: PanelProps['api'], params: ToolPanelParams): Runner {
  const [runId, setRunId] = useState<string | undefined>(params.runId);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);
  const [startError, setStartError] = useState<string | null>(null);
  useEffect(() => {
    setLoadError(null);
    if (runId && !runs.value[runId]) fetchRun(runId).catch((err) => setLoadError(errorMessage(err)));
  }, [runId]);

  async function start(values: FormValues): Promise<void> {
    setStarting(true);
    setStartError(null);
    try {
      const args = buildArgs(params.tool, values);
      const started = await startRun(pid(), params.tool, args);
      putRun(started);
      setRunId(started.id);
      const model = String(args.model ?? params.model);
      api.updateParameters({ ...params, model, runId: started.id, autorun: false });
      api.setTitle(`${TOOL_TITLES[params.tool]} · ${baseName(model)}`);
    } catch (err) {
      setStartError(errorMessage(err));
    } finally {
      setStarting(false);
    }
  }

  const run = runId ? runs.value[runId] ?? null : null;
  return { run, loadError, starting, startError, start };
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
  return (
    <div class="tool-actions">
      <button class="btn btn-primary" data-testid="tool-run" disabled={runner.starting} onClick={() => void runner.start(values)}>
        {run ? 'Run again' : 'Run'}
      </button>
    </div>
  );
}

export function ToolPanel({ api, params: raw }: PanelProps) {
  const params = raw as unknown as ToolPanelParams;
  const [values, setValues] = useState<FormValues>(() => initialValues(params.tool, { model: params.model, reference: params.reference }));
  const runner = useRunner(api, params);
  const { run } = runner;
  useEffect(() => {
    // A run opened from the history shows the arguments it ran with.
    if (run && run.id === params.runId) setValues(initialValues(params.tool, run.args));
  }, [run?.id]);
  useEffect(() => {
    if (params.autorun && !params.runId) void runner.start(values);
  }, []);

  function moveToNewTab(): void {
    openInNewTab({ ...params, runId: run?.id });
    api.close();
  }

  const change = (key: string, value: FieldValue) => setValues((v) => ({ ...v, [key]: value }));
  const locked = (run ? isActive(run) : false) || runner.starting;
  return (
    <div class="tool-panel" data-testid="tool-panel" data-tool={params.tool} data-model={params.model} data-run={run?.id ?? ''} data-status={run?.status ?? ''}>
      <Header params={params} run={run} onMove={moveToNewTab} />
      <div class="tool-body">
        <aside class="tool-side">
          <ToolForm tool={params.tool} panelId={api.id} values={values} disabled={locked} onChange={change} />
          <Actions runner={runner} values={values} />
          {runner.startError && <div class="form-error" data-testid="tool-start-error">{runner.startError}</div>}
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
