// A model's description: key figures, inputs and outputs, and which ops it is made of.
import type { InspectResult } from '../../../api/tools';
import { formatBytes, formatNumber } from '../format';
import { BarCell, Section, Stats, TensorTable } from './common';

export function InspectView({ result }: { result: InspectResult }) {
  const most = Math.max(1, ...result.op_histogram.map((o) => o.count));
  return (
    <div class="tool-result" data-testid="inspect-result">
      <Stats items={[
        { label: 'Format', value: result.format.toUpperCase(), testid: 'result-format' },
        { label: 'Source', value: result.source_format ?? '—' },
        { label: 'File size', value: formatBytes(result.file_size), testid: 'result-file-size' },
        { label: 'Parameters', value: formatNumber(result.params) },
        { label: 'MFLOPs', value: formatNumber(result.mflops) },
        { label: 'Memory', value: result.memory_mb === null ? '—' : `${result.memory_mb.toFixed(2)} MB` },
        { label: 'Ops', value: result.op_count },
      ]} />
      <Section title="Inputs and outputs"><TensorTable inputs={result.inputs} outputs={result.outputs} /></Section>
      <Section title={`Op histogram (${result.op_histogram.length} types)`} testid="inspect-ops">
        <table class="tool-table">
          <thead><tr><th>Op type</th><th class="tool-bar-head">Count</th></tr></thead>
          <tbody>
            {result.op_histogram.map((o) => (
              <tr key={o.type}><td class="mono">{o.type}</td><BarCell share={o.count / most}>{o.count}</BarCell></tr>
            ))}
          </tbody>
        </table>
      </Section>
      <Section title="Model" open={false}>
        <dl class="tool-facts">
          <dt>Version</dt><dd class="mono">{result.version ?? '—'}</dd>
          <dt>UUID</dt><dd class="mono">{result.uuid ?? '—'}</dd>
          <dt>bizCode</dt><dd class="mono">{result.biz_code ?? '—'}</dd>
          {result.producer !== undefined && <><dt>Producer</dt><dd class="mono">{result.producer || '—'}</dd></>}
        </dl>
      </Section>
    </div>
  );
}
