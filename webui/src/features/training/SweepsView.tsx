// The project's sweeps: for each, a table of its runs (the grid's values, status, final
// metrics, "use this model") and one metric of all runs on one chart.
import { useEffect, useState } from 'preact/hooks';
import type { Sweep, SweepRun } from '../../api/ray';
import { pull, revealFolder } from './actions';
import { StatusBadge } from './JobList';
import { jobs, pulls, selectedId } from './store';
import { runLabel, SweepChart } from './SweepChart';
import { loadSweeps, sweeps, sweepsError, view } from './sweeps';

const format = (value: unknown): string => (typeof value === 'number' ? String(Number(value.toPrecision(4))) : value == null ? '' : String(value));

function metricKeys(sweep: Sweep): string[] {
  const keys = new Set<string>();
  sweep.runs.forEach((run) => Object.keys(run.final).forEach((key) => key !== 'step' && keys.add(key)));
  return [...keys].sort();
}

function UseModel({ run }: { run: SweepRun }) {
  const state = pulls.value[run.job_id];
  if (state?.result) {
    const folder = state.result.folder;
    return <button class="link-btn" data-testid="sweep-pulled" onClick={() => revealFolder(folder)}>✓ {folder}/</button>;
  }
  if (state?.error) return <span class="job-pull-error" data-testid="pull-error" title={state.error}>{state.error}</span>;
  return (
    <button class="btn btn-small" data-testid="sweep-use-model" disabled={run.status !== 'succeeded' || state?.running}
      title="Bring this run's outputs into the project" onClick={() => void pull({ id: run.job_id })}>
      {state?.running ? 'Pulling…' : 'Use this model'}
    </button>
  );
}

function SweepTable({ sweep }: { sweep: Sweep }) {
  const flags = Object.keys(sweep.runs[0]?.args ?? {});
  const keys = metricKeys(sweep);
  const [metric, setMetric] = useState<string | null>(null);
  const shown = metric ?? keys.find((k) => k === 'loss') ?? keys[0] ?? null;
  const version = sweep.runs.map((r) => `${r.status}:${Object.keys(r.final).length}`).join(',');
  return (
    <div class="sweep" data-testid="sweep" data-sweep-id={sweep.id}>
      <div class="sweep-title"><span class="mono">{sweep.command}</span> <span class="muted mono">{sweep.grid}</span> <span class="muted">on {sweep.backend}</span></div>
      <table class="sweep-table" data-testid="sweep-table">
        <thead><tr>{flags.map((f) => <th key={f} class="mono">{f}</th>)}<th>status</th>{keys.map((k) => <th key={k}>{k}</th>)}<th /></tr></thead>
        <tbody>
          {sweep.runs.map((run) => (
            <tr key={run.job_id} data-testid="sweep-run" data-job-id={run.job_id} data-status={run.status ?? ''}>
              {flags.map((f) => <td key={f} class="mono">{run.args[f]}</td>)}
              <td><button class="link-btn" title="Show the job" onClick={() => { selectedId.value = run.job_id; view.value = 'jobs'; }}>
                {run.status ? <StatusBadge status={run.status} /> : '?'}
              </button></td>
              {keys.map((k) => <td key={k} class="mono" data-metric={k}>{format(run.final[k])}</td>)}
              <td><UseModel run={run} /></td>
            </tr>
          ))}
        </tbody>
      </table>
      {shown && (
        <>
          <label class="field field-narrow sweep-metric">
            <span>Chart</span>
            <select data-testid="sweep-metric" value={shown} onChange={(ev) => setMetric(ev.currentTarget.value)}>
              {keys.map((k) => <option key={k} value={k}>{k}</option>)}
            </select>
          </label>
          <SweepChart sweep={sweep} metric={shown} version={version} />
        </>
      )}
      <div class="sweep-legend muted">{sweep.runs.map((r) => runLabel(r.args)).join(' · ')}</div>
    </div>
  );
}

export function SweepsView() {
  const statuses = jobs.value.map((j) => `${j.id}:${j.status}`).join(',');
  useEffect(() => {
    void loadSweeps();
  }, [statuses]);
  if (sweepsError.value) return <div class="form-error">{sweepsError.value}</div>;
  if (!sweeps.value.length) return <div class="job-note" data-testid="sweeps-empty">No sweeps yet. Start one with <b>Sweep</b>.</div>;
  return <div class="sweeps" data-testid="sweeps">{sweeps.value.map((s) => <SweepTable key={s.id} sweep={s} />)}</div>;
}
