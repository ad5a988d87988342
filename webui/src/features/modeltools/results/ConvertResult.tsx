// What a conversion or a full int8 quantization produced: the new file, its size against the
// source, its inputs and outputs, and (quantize) how closely each layer follows the float model.
import type { ConvertResult, QuantizeAccuracy, QuantizeResult } from '../../../api/tools';
import { revealInTree } from '../reveal';
import { formatBytes, formatError, formatMs } from '../format';
import { runtimeLine, Section, Stats, TensorTable, Warnings } from './common';

function OutputLink({ path }: { path: string }) {
  return <button class="link-btn mono" data-testid="tool-output" title="Show in the file tree" onClick={() => revealInTree(path)}>{path}</button>;
}

const ratio = (value: number) => `${value.toFixed(2)}×`;

export function ConvertView({ result }: { result: ConvertResult }) {
  return (
    <div class="tool-result" data-testid="convert-result">
      <Stats items={[
        { label: 'Output', value: <OutputLink path={result.output} /> },
        { label: 'Output size', value: formatBytes(result.output_size), testid: 'result-output-size' },
        { label: 'Source size', value: formatBytes(result.input_size) },
        { label: 'Compression', value: ratio(result.compression_ratio), testid: 'result-compression' },
        { label: 'From', value: result.framework },
      ]} />
      {result.warnings.length > 0 && (
        <Section title={`Warnings (${result.warnings.length})`} testid="convert-warnings">
          <ul class="tool-warnings">{result.warnings.map((w, i) => <li key={i}>{w}</li>)}</ul>
        </Section>
      )}
      <Section title="Inputs and outputs"><TensorTable inputs={result.inputs} outputs={result.outputs} /></Section>
    </div>
  );
}

const COSINE_WARN = 0.99;
const COSINE_BAD = 0.95;
const cosineTone = (c: number | null) => (c === null ? '' : c < COSINE_BAD ? 'tone-bad' : c < COSINE_WARN ? 'tone-warn' : 'tone-ok');

const pct = (value: number | undefined) => (value === undefined ? '—' : `${(100 * value).toFixed(1)}%`);

/** The float and the int8 model on the dataset's val split: the accuracy quantizing cost. */
function Accuracy({ accuracy }: { accuracy: QuantizeAccuracy }) {
  const name = accuracy.headline === 'top1' ? 'Top-1' : 'mAP@0.5';
  const drop = 100 * accuracy.drop;
  return (
    <div class="tool-config" data-testid="quantize-accuracy">
      {name} on {accuracy.dataset}{accuracy.split ? `/${accuracy.split}` : ' (every sample)'}, {accuracy.samples} samples:
      float <b class="mono">{pct(accuracy.float[accuracy.headline])}</b> → int8 <b class="mono">{pct(accuracy.int8[accuracy.headline])}</b>{' '}
      <span class={drop > 2 ? 'tone-bad' : 'tone-ok'} data-testid="quantize-drop">({drop > 0 ? '−' : '+'}{Math.abs(drop).toFixed(1)} points)</span>
      {accuracy.skipped_count > 0 && <span class="muted"> · {accuracy.skipped_count} files skipped</span>}
      <span class="muted"> · {accuracy.disagreement_count} samples answered differently</span>
    </div>
  );
}

export function QuantizeView({ result }: { result: QuantizeResult }) {
  // The worst layers first: those are where int8 costs accuracy.
  const layers = [...result.layers].sort((a, b) => (a.cosine ?? 1) - (b.cosine ?? 1));
  const skipped = result.skipped ?? [];
  const speed = result.speed;
  return (
    <div class="tool-result" data-testid="quantize-result">
      <Stats items={[
        { label: 'Output', value: <OutputLink path={result.output} /> },
        { label: 'Output size', value: formatBytes(result.output_size), testid: 'result-output-size' },
        { label: 'Compression', value: ratio(result.compression_ratio), testid: 'result-compression' },
        { label: 'Samples', value: result.samples, testid: 'result-samples' },
        { label: 'Worst cosine', value: formatError(result.cosine), tone: result.cosine !== null && result.cosine < COSINE_BAD ? 'bad' : 'ok' },
        ...(speed ? [{ label: 'Float → int8', value: `${formatMs(speed.float_ms)} → ${formatMs(speed.int8_ms)}`, testid: 'result-speed',
          tone: speed.int8_ms > speed.float_ms ? 'warn' as const : 'ok' as const }] : []),
      ]} />
      {speed && <div class="tool-config muted" data-testid="quantize-speed-setup">Latency: median of {speed.runs} runs each, {runtimeLine(speed)}</div>}
      {result.accuracy && <Accuracy accuracy={result.accuracy} />}
      <Warnings warnings={result.warnings} testid="quantize-warnings" />
      {skipped.length > 0 && (
        <Section title={`Skipped calibration files (${skipped.length})`} testid="quantize-skipped">
          <table class="tool-table">
            <thead><tr><th>File</th><th>Why</th></tr></thead>
            <tbody>{skipped.map((s) => <tr key={s.file} data-testid="quantize-skipped-file"><td class="mono">{s.file}</td><td>{s.reason}</td></tr>)}</tbody>
          </table>
        </Section>
      )}
      <Section title={`Per-layer cosine (${layers.length})`} testid="quantize-layers">
        <table class="tool-table">
          <thead><tr><th>Layer</th><th class="num">Cosine</th><th class="num">Overflow</th></tr></thead>
          <tbody>
            {layers.map((l) => (
              <tr key={`${l.name}:${l.tensor}`}>
                <td class="mono" title={l.tensor}>{l.name}</td>
                <td class={`num mono ${cosineTone(l.cosine)}`}>{formatError(l.cosine)}</td>
                <td class="num mono">{formatError(l.overflow_ratio)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Section>
      <Section title="Inputs and outputs" open={false}><TensorTable inputs={result.inputs} outputs={result.outputs} /></Section>
    </div>
  );
}
