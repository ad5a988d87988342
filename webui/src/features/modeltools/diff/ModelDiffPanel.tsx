// A model diff in a dock panel: starts the run (or shows an earlier one), then the two models side
// by side — size, latency, outputs, the graph's differences, a chart of the worst layers and a
// sortable per-layer table.
import { useEffect, useState } from 'preact/hooks';
import { startDiff, type DiffResult } from '../../../api/checks';
import { errorMessage } from '../../../api/client';
import type { ToolRun } from '../../../api/tools';
import type { PanelProps } from '../../../kernel/panels';
import { pid } from '../../../kernel/session';
import { formatBytes, formatError } from '../format';
import { StatusBadge } from '../StatusBadge';
import { fetchRun, isActive, putRun, runs } from '../store';
import { ChangedOps, LayerTable, WorstLayers } from './DiffTables';
import { diffTitle, type ModelDiffParams } from './openDiff';
import './modeldiffpanel.css';

const ms = (value: number): string => `${value.toFixed(value < 1 ? 3 : 2)} ms`;

function ratio(a: number, b: number): string {
  return a > 0 ? `${(b / a).toFixed(2)}×` : '—';
}

/** The run this panel shows: started once from the request (its id kept in the panel's
 * parameters for a reload), then followed by the tools events. */
function useDiffRun(props: PanelProps): { run: ToolRun | null; error: string | null } {
  const params = props.params as ModelDiffParams;
  const [runId, setRunId] = useState<string | undefined>(params.runId);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (runId) {
      fetchRun(runId).catch((err: unknown) => setError(errorMessage(err)));
      return;
    }
    if (!params.request) return;
    startDiff(pid(), params.request)
      .then((run) => {
        putRun(run);
        props.api.updateParameters({ runId: run.id });
        setRunId(run.id);
      })
      .catch((err: unknown) => setError(errorMessage(err)));
  }, []);
  const run = runId ? runs.value[runId] ?? null : null;
  // The tools events move the run along; a reload or a missed event is caught up by a fetch.
  useEffect(() => {
    if (!run || !isActive(run)) return;
    const timer = window.setInterval(() => void fetchRun(run.id).catch(() => undefined), 2000);
    return () => window.clearInterval(timer);
  }, [run?.id, run?.status]);
  return { run, error };
}

function Summary({ result }: { result: DiffResult }) {
  const { size, latency } = result;
  return (
    <table class="tool-table diff-summary" data-testid="diff-summary">
      <thead><tr><th /><th class="num">A</th><th class="num">B</th><th class="num">B / A</th></tr></thead>
      <tbody>
        <tr><td>Size</td><td class="num">{formatBytes(size.a)}</td><td class="num">{formatBytes(size.b)}</td><td class="num" data-testid="diff-size-ratio">{ratio(size.a, size.b)}</td></tr>
        <tr><td>Median latency</td><td class="num">{ms(latency.a_median_ms)}</td><td class="num">{ms(latency.b_median_ms)}</td><td class="num">{ratio(latency.a_median_ms, latency.b_median_ms)}</td></tr>
        {result.outputs.map((o) => (
          <tr key={o.name} data-testid="diff-output">
            <td>Output <span class="mono">{o.name}</span></td>
            <td colSpan={3} class="num">cosine {formatError(o.cosine)} · max |error| {formatError(o.max_abs_error)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function ModelDiffPanel(props: PanelProps) {
  const { run, error } = useDiffRun(props);
  const request = (props.params as ModelDiffParams).request ?? (run?.args as ModelDiffParams['request']);
  const result = run?.status === 'succeeded' ? (run.result as unknown as DiffResult) : null;
  return (
    <div class="tool-panel model-diff-panel" data-testid="model-diff-panel" data-status={run?.status ?? ''}>
      <div class="panel-toolbar">
        <span class="panel-toolbar-title">{request ? diffTitle(request) : 'Model diff'}</span>
        {run && <StatusBadge status={run.status} />}
      </div>
      <div class="diff-body">
        {error && <div class="form-error" data-testid="diff-error">{error}</div>}
        {run && isActive(run) && <div class="tool-empty muted">Running both models…</div>}
        {run && !isActive(run) && !result && <div class="form-error" data-testid="diff-error">{run.error ?? `The diff ended ${run.status}.`}</div>}
        {result && (
          <>
            {result.warnings.map((w) => <div class="form-error" key={w}>{w}</div>)}
            <Summary result={result} />
            <ChangedOps result={result} />
            <WorstLayers layers={result.layers} />
            <LayerTable layers={result.layers} />
          </>
        )}
      </div>
    </div>
  );
}
