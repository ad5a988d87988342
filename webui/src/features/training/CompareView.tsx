// "Compare": the ticked jobs' curves overlaid, one chart per metric with a line per job, and a
// table of their final figures and of what differs between them (docs/training.md).
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import type { Job } from '../../api/jobs';
import { describeError } from './actions';
import { bestIndex, differences, lastValue, metricKeys, readCompared, type Compared } from './compare';
import { shortId } from './format';
import { StatusBadge } from './JobList';
import { comparing } from './store';

const PALETTE = ['#3794ff', '#e2c08d', '#73c991', '#c586c0', '#f48771', '#4fc1ff', '#d7ba7d', '#b5cea8'];
const color = (i: number): string => PALETTE[i % PALETTE.length];

function OverlayChart({ metric, compared }: { metric: string; compared: Compared[] }) {
  const host = useRef<HTMLDivElement>(null);
  const drawn = compared.filter((c) => c.series.get(metric)?.steps.length);
  useEffect(() => {
    if (!drawn.length) return undefined;
    const tables = drawn.map((c) => {
      const series = c.series.get(metric)!;
      return [series.steps, series.values] as uPlot.AlignedData;
    });
    const chart = new uPlot({
      width: Math.max(240, (host.current?.clientWidth ?? 480) - 16), height: 180,
      scales: { x: { time: false } },
      series: [{ label: 'step' }, ...drawn.map((c) => ({
        label: `#${shortId(c.job.id)}`, stroke: color(compared.indexOf(c)), width: 1.5, spanGaps: true,
      }))],
      axes: [{ stroke: '#8b8b8b' }, { stroke: '#8b8b8b' }],
    }, uPlot.join(tables), host.current!);
    return () => chart.destroy();
  }, [metric, compared]);
  return (
    <div class="compare-chart" data-testid="compare-chart" data-metric={metric} data-lines={drawn.length}>
      <div class="compare-chart-title">{metric}</div>
      <div ref={host} />
    </div>
  );
}

function Figures({ compared }: { compared: Compared[] }) {
  const list = compared.map((c) => c.job);
  const format = (v: number | null) => (v === null ? '—' : Number(v.toPrecision(4)).toString());
  return (
    <table class="compare-table" data-testid="compare-table">
      <thead>
        <tr>
          <th />
          {compared.map((c, i) => (
            <th key={c.job.id} data-job-id={c.job.id}><span class="compare-swatch" style={{ background: color(i) }} />#{shortId(c.job.id)} <StatusBadge status={c.job.status} /></th>
          ))}
        </tr>
      </thead>
      <tbody>
        {differences(list).map((row) => (
          <tr key={row.label} data-testid="compare-difference" data-label={row.label}>
            <th>{row.label}</th>
            {row.values.map((v, i) => <td key={i} class="mono">{v}</td>)}
          </tr>
        ))}
        {metricKeys(compared).map((key) => {
          const values = compared.map((c) => lastValue(c.series.get(key)));
          const best = bestIndex(key, values);
          return (
            <tr key={key} data-testid="compare-metric" data-metric={key}>
              <th>{key} <span class="muted">(last)</span></th>
              {values.map((v, i) => <td key={i} class={i === best ? 'compare-best' : ''} data-value={v ?? ''}>{format(v)}</td>)}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

export function CompareView({ jobs }: { jobs: Job[] }) {
  const [compared, setCompared] = useState<Compared[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const ids = jobs.map((j) => `${j.id}:${j.status}`).join(' ');
  useEffect(() => {
    let gone = false;
    readCompared(jobs).then((c) => !gone && setCompared(c), (err: unknown) => !gone && setError(describeError(err)));
    return () => { gone = true; };
  }, [ids]);
  return (
    <div class="compare-view" data-testid="compare-view">
      <div class="job-header">
        <span>Comparing {jobs.length} jobs</span>
        <span class="status-spacer" />
        <button class="btn btn-small" data-testid="compare-close" onClick={() => (comparing.value = false)}>Close</button>
      </div>
      {error && <div class="form-error">{error}</div>}
      {compared && (
        <div class="compare-body">
          <Figures compared={compared} />
          {metricKeys(compared).map((key) => <OverlayChart key={key} metric={key} compared={compared} />)}
          {!metricKeys(compared).length && <div class="job-note">None of these jobs printed metrics.</div>}
        </div>
      )}
    </div>
  );
}
