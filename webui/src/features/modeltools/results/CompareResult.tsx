// MNN against its reference: a pass/fail verdict, errors per output and per matching layer.
import type { CompareResult, ErrorFigures } from '../../../api/tools';
import { formatError, formatShape } from '../format';
import { Section, Stats } from './common';

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

export function CompareView({ result }: { result: CompareResult }) {
  // Where the models drift apart: the largest relative errors first.
  const layers = [...result.layers].sort((a, b) => b.relative_error - a.relative_error);
  const reference = result.reference_kind === 'onnxruntime' ? 'ONNX Runtime' : 'MNN';
  return (
    <div class="tool-result" data-testid="compare-result">
      <div class={`tool-verdict ${result.passed ? 'pass' : 'fail'}`} data-testid="compare-verdict">
        {result.passed ? '✓ Pass' : '✗ Fail'}
        <span class="muted"> — relative error {formatError(result.relative_error)} {result.passed ? '≤' : '>'} threshold {result.threshold}, against {reference}</span>
      </div>
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
      {layers.length > 0 && (
        <Section title={`Layers (${layers.length} matched by name)`} testid="compare-layers" open={!result.passed}>
          <table class="tool-table">
            <thead><tr><th>Tensor</th><th>Shape</th>{HEAD}</tr></thead>
            <tbody>
              {layers.map((l) => (
                <tr key={l.name}><td class="mono">{l.name}</td><td class="mono">{formatShape(l.shape)}</td><ErrorCells row={l} threshold={result.threshold} /></tr>
              ))}
            </tbody>
          </table>
        </Section>
      )}
    </div>
  );
}
