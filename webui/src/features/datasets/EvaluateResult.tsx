// An evaluate run's result: each model's figures (the first is the baseline: the others' drop is
// from it), per class, the confusion matrix of a chosen model, the samples where the models
// disagree with the image and every model's answer, and the files skipped.
import { useState } from 'preact/hooks';
import type { EvaluatedModel, EvaluateResult } from '../../api/datasets';
import { rawUrl } from '../../api/files';
import { formatMs, formatShape } from '../modeltools/format';
import { Section, Stats } from '../modeltools/results/common';
import { pid } from '../../kernel/session';

const percent = (value: number | null | undefined): string =>
  value === null || value === undefined ? '—' : `${(100 * value).toFixed(1)}%`;
const points = (value: number | undefined): string =>
  value === undefined ? '' : value === 0 ? '±0' : `${value > 0 ? '−' : '+'}${Math.abs(100 * value).toFixed(1)}`;
const short = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

function Headline({ model, metric }: { model: EvaluatedModel; metric: string }) {
  if (metric === 'accuracy') {
    return (
      <>
        <td class="num mono" data-testid="evaluate-top1">{percent(model.top1)}</td>
        <td class="num mono">{percent(model.top5)}</td>
      </>
    );
  }
  if (metric === 'map50') return <td class="num mono" data-testid="evaluate-map50">{percent(model.map50)}</td>;
  return <td class="mono">{Object.entries(model.metrics ?? {}).map(([k, v]) => `${k} ${v.toPrecision(4)}`).join(' · ')}</td>;
}

function Models({ result }: { result: EvaluateResult }) {
  const heads = result.metric === 'accuracy' ? ['Top-1', 'Top-5'] : result.metric === 'map50' ? ['mAP@0.5'] : [result.metric];
  const scripted = result.metric !== 'accuracy' && result.metric !== 'map50';
  return (
    <table class="tool-table" data-testid="evaluate-models">
      <thead><tr><th>Model</th><th>Kind</th><th>Runs on</th>{heads.map((h) => <th key={h} class={scripted ? '' : 'num'}>{h}</th>)}
        {!scripted && <th class="num">Drop (points)</th>}<th class="num">Median</th><th>Shape</th></tr></thead>
      <tbody>
        {result.models.map((m, i) => (
          <tr key={m.model} data-testid="evaluate-model" data-model={m.model}>
            <td class="mono" title={m.model}>{m.model}</td>
            <td data-testid="evaluate-kind">{m.kind}</td>
            <td class="muted">{m.runtime === 'onnxruntime' ? 'ONNX Runtime' : m.runtime === 'tflite' ? 'TFLite' : 'MNN'}</td>
            <Headline model={m} metric={result.metric} />
            {!scripted && (
              <td class={`num mono ${(m.drop ?? 0) > 0.02 ? 'tone-bad' : ''}`} data-testid="evaluate-drop">{i === 0 ? 'baseline' : points(m.drop)}</td>
            )}
            <td class="num mono">{formatMs(m.median_ms)}</td>
            <td class="mono muted" title={m.shape_from_spec ? "the spec's default shape" : ''}>{formatShape(m.input_shape)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function PerClass({ result }: { result: EvaluateResult }) {
  if (!result.per_class) return null;
  const detection = result.metric === 'map50';
  return (
    <Section title={detection ? 'AP@0.5 per class' : 'Per class (recall · precision)'} testid="evaluate-per-class">
      <table class="tool-table">
        <thead><tr><th>Class</th><th class="num">{detection ? 'Boxes' : 'Samples'}</th>{result.models.map((m) => <th key={m.model} class="num" title={m.model}>{short(m.model)}</th>)}</tr></thead>
        <tbody>
          {result.per_class.map((row) => (
            <tr key={row.class} data-testid="evaluate-class" data-class={row.class}>
              <td class="mono">{row.class}</td>
              <td class="num mono">{row.support}</td>
              {row.models.map((m, i) => (
                <td key={i} class="num mono">{detection ? percent(m.ap50) : `${percent(m.recall)} · ${percent(m.precision)}`}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}

function Confusion({ result }: { result: EvaluateResult }) {
  const [shown, setShown] = useState(result.models.length - 1);
  if (!result.confusion || !result.confusion_columns) return null;
  const matrix = result.confusion[shown] ?? result.confusion[0];
  const columns = result.confusion_columns;
  const other = matrix.some((row) => row[columns.length - 1] > 0);
  const largest = Math.max(1, ...matrix.flat());
  return (
    <Section title="Confusion matrix (rows: the truth, columns: the answer)" testid="evaluate-confusion">
      <select data-testid="evaluate-confusion-model" value={shown} onChange={(ev) => setShown(Number(ev.currentTarget.value))}>
        {result.models.map((m, i) => <option key={m.model} value={i}>{m.model}</option>)}
      </select>
      <table class="tool-table evaluate-matrix">
        <thead><tr><th />{columns.slice(0, other ? undefined : -1).map((c) => <th key={c} class="num mono">{c}</th>)}</tr></thead>
        <tbody>
          {matrix.map((row, r) => (
            <tr key={r}>
              <th class="mono">{columns[r]}</th>
              {row.slice(0, other ? undefined : -1).map((count, c) => (
                <td key={c} class={`num mono ${r === c ? 'evaluate-diagonal' : count ? 'evaluate-miss' : 'muted'}`}
                  style={{ '--weight': String(count / largest) }} data-testid="evaluate-cell">{count}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}

function Disagreements({ result }: { result: EvaluateResult }) {
  if (result.models.length < 2) return null;
  const count = result.disagreement_count;
  return (
    <Section title={`Samples the models disagree on (${count})`} testid="evaluate-disagreements">
      {count === 0 && <div class="muted">Every model answered the same on every sample.</div>}
      {count > result.disagreements.length && <div class="muted">The first {result.disagreements.length} are shown.</div>}
      <div class="evaluate-samples">
        {result.disagreements.map((d) => (
          <figure key={d.sample} class="evaluate-sample" data-testid="evaluate-disagreement" data-file={d.file ?? d.sample}>
            {d.file && <img src={rawUrl(pid(), d.file)} alt={d.sample} title={d.file} loading="lazy" />}
            <figcaption>
              <div class="mono" title={d.sample}>{short(d.sample)}{d.label && <> · is <b>{d.label}</b></>}</div>
              {d.answers.map((a, i) => (
                <div key={i} class={a.right === true ? 'tone-ok' : a.right === false ? 'tone-bad' : ''} data-testid="evaluate-answer">
                  <span class="muted">{short(result.models[i]?.model ?? '')}:</span> {a.label}{a.score !== undefined && ` ${(100 * a.score).toFixed(0)}%`}
                </div>
              ))}
            </figcaption>
          </figure>
        ))}
      </div>
    </Section>
  );
}

export function EvaluateView({ result }: { result: EvaluateResult }) {
  return (
    <div class="tool-result" data-testid="evaluate-result">
      <Stats items={[
        { label: 'Dataset', value: <span class="mono">{result.dataset}</span> },
        { label: 'Split', value: result.split ?? 'all', testid: 'evaluate-split-used' },
        { label: 'Samples', value: result.samples, testid: 'evaluate-samples' },
        { label: 'Skipped', value: result.skipped_count, testid: 'evaluate-skipped-count', tone: result.skipped_count ? 'warn' : undefined },
        { label: 'Disagreements', value: result.disagreement_count, testid: 'evaluate-disagreement-count' },
        { label: 'Samples/s', value: result.samples_per_s ? result.samples_per_s.toFixed(0) : '—' },
      ]} />
      <div class="tool-config muted">
        Each sample preprocessed once{result.preprocessed.groups > 1 ? ` per preprocessing (${result.preprocessed.groups})` : ''} and fed to every model
        ({formatMs(result.preprocessed.median_ms)} median); latency: the median of each model's runs.
      </div>
      <Models result={result} />
      <PerClass result={result} />
      <Confusion result={result} />
      <Disagreements result={result} />
      {result.skipped.length > 0 && (
        <Section title={`Files skipped (${result.skipped_count})`} testid="evaluate-skipped">
          <table class="tool-table">
            <thead><tr><th>File</th><th>Why</th></tr></thead>
            <tbody>{result.skipped.map((s) => <tr key={s.file} data-testid="evaluate-skipped-file"><td class="mono">{s.file}</td><td>{s.reason}</td></tr>)}</tbody>
          </table>
        </Section>
      )}
    </div>
  );
}
