// Two runs of one pipeline side by side (docs/pipelines.md#comparing-two-runs): per stage the
// median and p90 of both, the first stage whose output diverges highlighted, and each input's
// photo, stages and readings from both runs.
import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../../api/client';
import { comparePipelineRuns, type PipelineComparison, type PipelineResult, type StageFigures, type ToolRun } from '../../../api/tools';
import { pid } from '../../../kernel/session';
import { InputView } from './InputView';

const ms = (f: StageFigures | null, key: 'median_ms' | 'p90_ms') => (f ? f[key].toFixed(2) : '–');

function Figures({ figures }: { figures: [StageFigures | null, StageFigures | null] }) {
  const [a, b] = figures;
  return (
    <>
      <td class="num mono">{ms(a, 'median_ms')}</td><td class="num mono">{ms(a, 'p90_ms')}</td>
      <td class="num mono">{ms(b, 'median_ms')}</td><td class="num mono">{ms(b, 'p90_ms')}</td>
    </>
  );
}

function StagesTable({ comparison }: { comparison: PipelineComparison }) {
  const first = comparison.first_divergence?.stage;
  return (
    <table class="tool-table" data-testid="compare-stages">
      <thead><tr><th>Stage</th><th class="num">A median</th><th class="num">A p90</th><th class="num">B median</th><th class="num">B p90</th><th>Diverges</th></tr></thead>
      <tbody>
        {comparison.stages.map((s) => (
          <tr key={s.id} data-testid="compare-stage" data-stage={s.id} data-diverged={String(s.diverged.length > 0)}
            data-first={String(s.id === first)} class={s.id === first ? 'pipeline-first-divergence' : s.diverged.length ? 'pipeline-diverged' : ''}>
            <td class="mono">{s.id}</td><Figures figures={[s.a, s.b]} />
            <td class="muted">{s.diverged.length ? `on ${s.diverged.length} of ${comparison.inputs.length} input(s)` : ''}</td>
          </tr>
        ))}
        <tr data-testid="compare-end-to-end"><td>end to end</td><Figures figures={[comparison.end_to_end.a, comparison.end_to_end.b]} /><td /></tr>
      </tbody>
    </table>
  );
}

export function CompareView({ a, b }: { a: ToolRun; b: ToolRun }) {
  const [comparison, setComparison] = useState<PipelineComparison | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setComparison(null);
    comparePipelineRuns(pid(), a.id, b.id).then(setComparison, (err) => setError(errorMessage(err)));
  }, [a.id, b.id]);
  if (error) return <div class="form-error" role="alert" data-testid="compare-error">{error}</div>;
  if (!comparison) return <div class="muted">Comparing…</div>;
  const results = [a, b].map((run) => run.result as unknown as PipelineResult);
  const first = comparison.first_divergence;
  return (
    <div class="pipeline-compare" data-testid="compare-result">
      <div data-testid="compare-first" class={first ? 'form-error' : 'muted'}>
        {first ? `First divergence: ${first.stage} on ${first.input} — ${first.reason}` : 'No stage diverges: both runs give the same outputs.'}
      </div>
      <StagesTable comparison={comparison} />
      {comparison.inputs.map((input) => {
        const diverged = new Set(comparison.stages.filter((s) => s.diverged.some((d) => d.input === input)).map((s) => s.id));
        return (
          <div key={input} class="pipeline-side-by-side" data-testid="compare-input" data-input={input}>
            {results.map((result, i) => {
              const run = result.inputs.find((r) => r.input === input);
              return (
                <div key={i} data-testid={`compare-side-${i ? 'b' : 'a'}`}>
                  <div class="muted">{i ? 'B' : 'A'}{result.device ? ` · on ${result.device.name}` : ''}</div>
                  {run && <InputView result={run} diverged={diverged} />}
                </div>
              );
            })}
          </div>
        );
      })}
    </div>
  );
}
