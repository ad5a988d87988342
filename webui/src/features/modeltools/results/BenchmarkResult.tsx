// Latency figures, the slowest ops and the latency distribution of a benchmark run.
import { useEffect, useMemo, useRef } from 'preact/hooks';
import type { BenchmarkOp, BenchmarkResult } from '../../../api/tools';
import { formatMs, formatNumber } from '../format';
import { barChart, type BarChartSpec } from './charts';
import { BarCell, Section, Stats } from './common';

const TOP_OPS = 12;
const shortName = (name: string, max = 11) => (name.length > max ? `${name.slice(0, max - 1)}…` : name);

function Chart({ spec, testid }: { spec: BarChartSpec; testid: string }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => barChart(host.current!, spec), [spec]);
  return <div class="tool-chart" data-testid={testid} ref={host} />;
}

function opsChart(ops: BenchmarkOp[]): BarChartSpec {
  const top = ops.slice(0, TOP_OPS);
  // Small nets run ops in microseconds: the axis reads better in µs then.
  const micro = (top[0]?.ms ?? 0) < 1;
  return {
    x: top.map((_, i) => i),
    y: top.map((o) => (micro ? o.ms * 1000 : o.ms)),
    xLabel: (i) => shortName(top[i]?.type ?? ''),
    legendX: (i) => `${top[i]?.name ?? ''} (${top[i]?.type ?? ''})`,
    xName: 'op',
    yLabel: micro ? 'µs' : 'ms',
    color: '#3794ff',
  };
}

function histogramChart(histogram: BenchmarkResult['histogram']): BarChartSpec {
  const { edges, counts } = histogram;
  const centres = counts.map((_, i) => (edges[i] + edges[i + 1]) / 2);
  return {
    x: centres,
    y: counts,
    xLabel: (x) => formatMs(x, edges[1] - edges[0]),
    legendX: (x) => {
      const i = centres.indexOf(x);
      const width = edges[1] - edges[0];
      return i < 0 ? '' : `${formatMs(edges[i], width)} – ${formatMs(edges[i + 1], width)}`;
    },
    xName: 'latency',
    yLabel: 'runs',
    color: '#73c991',
  };
}

function OpTable({ ops }: { ops: BenchmarkOp[] }) {
  const slowest = Math.max(1e-9, ...ops.map((o) => o.ms));
  return (
    <table class="tool-table" data-testid="benchmark-ops">
      <thead><tr><th>Op</th><th>Type</th><th class="tool-bar-head">Time</th><th class="num">%</th><th class="num">MFLOPs</th></tr></thead>
      <tbody>
        {ops.map((o) => (
          <tr key={o.name}>
            <td class="mono">{o.name}</td><td class="mono muted">{o.type}</td>
            <BarCell share={o.ms / slowest}>{formatMs(o.ms)}</BarCell>
            <td class="num mono">{o.percent.toFixed(1)}</td><td class="num mono">{formatNumber(o.mflops, 3)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function BenchmarkView({ result, args }: { result: BenchmarkResult; args: Record<string, unknown> }) {
  // What it ran with, as the result records it (runs from before it did: their arguments).
  const ran: Record<string, unknown> = { ...args, ...result.config };
  const setup = ['backend', 'threads', 'precision', 'power', 'memory', 'warmup', 'loops']
    .filter((k) => ran[k] !== undefined).map((k) => `${k} ${String(ran[k])}`).join(' · ');
  const ops = useMemo(() => [...result.ops].sort((a, b) => b.ms - a.ms), [result]);
  const charts = useMemo(() => ({ ops: opsChart(ops), latency: histogramChart(result.histogram) }), [result]);
  return (
    <div class="tool-result" data-testid="benchmark-result">
      <div class="tool-config muted" data-testid="benchmark-config">{setup}</div>
      <Stats items={[
        { label: 'Median', value: formatMs(result.median_ms), testid: 'result-median' },
        { label: 'Min', value: formatMs(result.min_ms) },
        { label: 'Mean', value: formatMs(result.mean_ms) },
        { label: 'p90', value: formatMs(result.p90_ms) },
        { label: 'p99', value: formatMs(result.p99_ms) },
        { label: 'Max', value: formatMs(result.max_ms) },
        { label: 'MFLOPs', value: formatNumber(result.mflops) },
      ]} />
      <div class="tool-charts">
        {ops.length > 0 && <Section title={`Slowest ops (top ${Math.min(TOP_OPS, ops.length)})`}><Chart spec={charts.ops} testid="chart-ops" /></Section>}
        <Section title={`Latency distribution (${result.histogram.counts.reduce((a, b) => a + b, 0)} runs)`}><Chart spec={charts.latency} testid="chart-latency" /></Section>
      </div>
      {ops.length > 0 && (
        <Section title={`Per-op profile (${ops.length} ops, ${formatMs(result.op_total_ms)} summed over a ${formatMs(result.profiled_median_ms)} run)`}>
          <OpTable ops={ops} />
        </Section>
      )}
    </div>
  );
}
