// MNN against its reference: a pass/fail verdict, errors per output and per paired layer, how
// many of the model's tensors were paired (and how), what the converter fused away, and the
// first layer where the two drift apart, marked in the table and findable in the graph.
import type { CompareResult, ErrorFigures } from '../../../api/tools';
import { formatError, formatShape } from '../format';
import { openGraph } from '../open';
import { runtimeLine, Section, Stats } from './common';

function ErrorCells({ row, threshold }: { row: ErrorFigures; threshold: number }) {
  return (
    <>
      <td class="num mono">{formatError(row.max_abs_error)}</td>
      <td class="num mono">{formatError(row.mean_abs_error)}</td>
      <td class={`num mono ${row.relative_error > threshold ? 'tone-bad' : ''}`}>{formatError(row.relative_error)}</td>
      <td class="num mono">{formatError(row.cosine)}</td>
    </>
  );
}

const HEAD = <><th class="num">Max abs</th><th class="num">Mean abs</th><th class="num">Relative</th><th class="num">Cosine</th></>;

export function CompareView({ result, model }: { result: CompareResult; model?: string }) {
  // Where the models drift apart: the largest relative errors first.
  const layers = [...result.layers].sort((a, b) => b.relative_error - a.relative_error);
  const reference = result.reference_kind === 'onnxruntime' ? 'ONNX Runtime' : 'MNN';
  const coverage = result.coverage;
  const divergent = result.first_divergent;
  return (
    <div class="tool-result" data-testid="compare-result">
      <div class={`tool-verdict ${result.passed ? 'pass' : 'fail'}`} data-testid="compare-verdict">
        {result.passed ? '✓ Pass' : '✗ Fail'}
        <span class="muted"> — relative error {formatError(result.relative_error)} {result.passed ? '≤' : '>'} threshold {result.threshold}, against {reference}</span>
      </div>
      {result.runtime && <div class="tool-config muted" data-testid="compare-runtime">{runtimeLine(result.runtime)}</div>}
      <Stats items={[
        { label: 'Max abs error', value: formatError(result.max_abs_error) },
        { label: 'Relative error', value: formatError(result.relative_error), tone: result.passed ? 'ok' : 'bad' },
        { label: 'Cosine', value: formatError(result.cosine) },
        { label: 'Inputs', value: result.inputs.map((i) => `${i.name} ${formatShape(i.shape)} (${i.source})`).join(', ') },
      ]} />
      <Section title="Outputs" testid="compare-outputs">
        <table class="tool-table">
          <thead><tr><th>Output</th><th>Verdict</th><th>Shape</th>{HEAD}</tr></thead>
          <tbody>
            {result.outputs.map((o) => (
              <tr key={o.name} data-testid="compare-output">
                <td class="mono">{o.name}</td>
                <td class={o.passed ? 'tone-ok' : 'tone-bad'} data-testid="compare-output-verdict">{o.passed ? '✓ pass' : '✗ fail'}</td>
                <td class="mono">{formatShape(o.shape)}</td>
                <ErrorCells row={o} threshold={result.threshold} />
              </tr>
            ))}
          </tbody>
        </table>
      </Section>
      {coverage && (
        <div class={`compare-coverage ${coverage.matched ? '' : 'tone-bad'}`} data-testid="compare-coverage">
          Per-layer: matched {coverage.matched} of {coverage.of} tensors
          {coverage.matched > 0 && ` (${Object.entries(coverage.by).filter(([, n]) => n).map(([how, n]) => `${n} by ${how}`).join(', ')})`}
          {coverage.reason && <div>{coverage.reason}</div>}
        </div>
      )}
      {divergent && (
        <div class="compare-divergent tone-bad" data-testid="compare-first-divergent">
          First divergent layer: <span class="mono">{divergent.model_name}</span> — {divergent.why}
          {model && (
            <button class="btn btn-small" data-testid="compare-show-in-graph" title="Open the graph with this layer selected"
              onClick={() => openGraph(model, divergent.model_name)}>Show in graph</button>
          )}
        </div>
      )}
      {layers.length > 0 && (
        <Section title={`Layers (${layers.length} paired)`} testid="compare-layers" open={!result.passed || !!divergent}>
          <table class="tool-table">
            <thead><tr><th>Tensor</th><th>Paired by</th><th>Shape</th>{HEAD}</tr></thead>
            <tbody>
              {layers.map((l) => (
                <tr key={l.name} class={divergent?.name === l.name ? 'compare-divergent-row' : ''}
                  data-testid="compare-layer" data-divergent={String(divergent?.name === l.name)}>
                  <td class="mono" title={l.model_name && l.model_name !== l.name ? `MNN: ${l.model_name}` : undefined}>{l.name}</td>
                  <td class="muted">{l.matched_by ?? 'name'}</td>
                  <td class="mono">{formatShape(l.shape)}</td><ErrorCells row={l} threshold={result.threshold} />
                </tr>
              ))}
            </tbody>
          </table>
        </Section>
      )}
      {!!result.fused_away?.length && (
        <Section title={`Fused away by the converter (${result.fused_away.length})`} testid="compare-fused">
          <div class="mono muted">{result.fused_away.join(', ')}</div>
        </Section>
      )}
    </div>
  );
}
