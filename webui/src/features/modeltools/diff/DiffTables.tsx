// The graph's differences, the worst layers as bars, and the per-layer table (sortable by column).
import { useState } from 'preact/hooks';
import type { DiffLayer, DiffResult } from '../../../api/checks';
import { formatError } from '../format';

const WORST_SHOWN = 10;
const SAME_BELOW = 1e-9;
type Column = 'name' | 'type' | 'a_ms' | 'b_ms' | 'delta_ms' | 'cosine' | 'max_abs_error';
const COLUMNS: { key: Column; label: string; numeric: boolean }[] = [
  { key: 'name', label: 'Layer', numeric: false },
  { key: 'type', label: 'Type', numeric: false },
  { key: 'a_ms', label: 'A ms', numeric: true },
  { key: 'b_ms', label: 'B ms', numeric: true },
  { key: 'delta_ms', label: 'Δ ms', numeric: true },
  { key: 'cosine', label: 'Cosine', numeric: true },
  { key: 'max_abs_error', label: 'Max |error|', numeric: true },
];

const msText = (value: number | null): string => (value === null ? '—' : value.toFixed(4));

export function ChangedOps({ result }: { result: DiffResult }) {
  const { ops_changed: changed, ops_only_in_a: onlyA, ops_only_in_b: onlyB } = result;
  if (!changed.length && !onlyA.length && !onlyB.length) {
    return <p class="muted" data-testid="diff-graph">The two graphs have the same ops.</p>;
  }
  const storage = (quantized: boolean): string => (quantized ? 'quantized' : 'float');
  return (
    <div data-testid="diff-graph">
      <div class="scm-binary-title">Graph differences</div>
      <ul class="diff-changes">
        {onlyA.length > 0 && <li>Only in A: <span class="mono">{onlyA.join(', ')}</span></li>}
        {onlyB.length > 0 && <li>Only in B: <span class="mono">{onlyB.join(', ')}</span></li>}
        {changed.map((op) => (
          <li key={op.name} data-testid="diff-changed-op">
            <span class="mono">{op.name}</span>: {op.a_type} ({storage(op.a_quantized)}, {op.a_params} weights) →{' '}
            {op.b_type} ({storage(op.b_quantized)}, {op.b_params} weights)
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The layers B moved furthest from A (lowest cosine), as bars of 1 − cosine; differences
 * within float rounding (1 − cosine below 1e-9) are no difference. */
export function WorstLayers({ layers }: { layers: DiffLayer[] }) {
  const worst = layers
    .map((l) => ({ name: l.name, loss: l.cosine === null ? null : 1 - l.cosine }))
    .filter((l): l is { name: string; loss: number } => l.loss !== null && l.loss > SAME_BELOW)
    .sort((x, y) => y.loss - x.loss)
    .slice(0, WORST_SHOWN);
  const largest = Math.max(...worst.map((l) => l.loss), 0);
  return (
    <div class="diff-worst" data-testid="diff-worst">
      <div class="scm-binary-title">Worst layers (1 − cosine)</div>
      {worst.length === 0 && <p class="muted">No layer differs.</p>}
      {worst.map((l) => (
        <div class="diff-bar-row" key={l.name} data-testid="diff-worst-row">
          <span class="mono diff-bar-name" title={l.name}>{l.name}</span>
          <span class="diff-bar-track"><span class="diff-bar" style={{ width: `${(100 * l.loss) / largest}%` }} /></span>
          <span class="num mono">{formatError(l.loss)}</span>
        </div>
      ))}
    </div>
  );
}

function compare(x: DiffLayer, y: DiffLayer, key: Column): number {
  const a = x[key];
  const b = y[key];
  if (a === null) return b === null ? 0 : 1;
  if (b === null) return -1;
  return typeof a === 'string' ? a.localeCompare(String(b)) : (a as number) - (b as number);
}

export function LayerTable({ layers }: { layers: DiffLayer[] }) {
  const [sort, setSort] = useState<{ key: Column; descending: boolean } | null>(null);
  const rows = sort ? [...layers].sort((x, y) => compare(x, y, sort.key) * (sort.descending ? -1 : 1)) : layers;
  const pick = (key: Column) => setSort(sort?.key === key ? { key, descending: !sort.descending } : { key, descending: key === 'delta_ms' });
  return (
    <table class="tool-table diff-layers" data-testid="diff-layers">
      <thead>
        <tr>
          {COLUMNS.map((c) => (
            <th key={c.key} class={c.numeric ? 'num sortable' : 'sortable'} data-testid={`diff-sort-${c.key}`}
              aria-sort={sort?.key === c.key ? (sort.descending ? 'descending' : 'ascending') : 'none'}
              onClick={() => pick(c.key)}>{c.label}{sort?.key === c.key ? (sort.descending ? ' ▼' : ' ▲') : ''}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((l) => (
          <tr key={l.name} data-testid="diff-layer-row" data-layer={l.name}>
            <td class="mono" title={l.name}>{l.name}</td>
            <td>{l.type}</td>
            <td class="num mono">{msText(l.a_ms)}</td>
            <td class="num mono">{msText(l.b_ms)}</td>
            <td class="num mono">{msText(l.delta_ms)}</td>
            <td class="num mono" data-testid="diff-layer-cosine">{formatError(l.cosine)}</td>
            <td class="num mono">{formatError(l.max_abs_error)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
