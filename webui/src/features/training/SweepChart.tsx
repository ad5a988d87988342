// One metric of every run of a sweep on one chart, a line per run, against `step`.
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { getMetrics } from '../../api/jobs';
import type { Sweep } from '../../api/ray';

const PALETTE = ['#3794ff', '#e2c08d', '#73c991', '#c586c0', '#f48771', '#4fc1ff', '#d7ba7d', '#b5cea8'];

export const runLabel = (args: Record<string, string>): string => Object.entries(args).map(([k, v]) => `${k.replace(/^-+/, '')}=${v}`).join(' ');

async function tables(sweep: Sweep, metric: string): Promise<uPlot.AlignedData[]> {
  const all = await Promise.all(sweep.runs.map((run) => getMetrics(run.job_id)));
  return all.map(({ points }) => {
    const rows = points.filter((p) => typeof p[metric] === 'number');
    return [rows.map((p, i) => (typeof p.step === 'number' ? p.step : i)), rows.map((p) => p[metric] as number)];
  });
}

export function SweepChart({ sweep, metric, version }: { sweep: Sweep; metric: string; version: string }) {
  const host = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let chart: uPlot | null = null;
    let gone = false;
    tables(sweep, metric).then((data) => {
      if (gone || !host.current) return;
      const joined = uPlot.join(data.filter((t) => t[0].length) as uPlot.AlignedData[]);
      const runs = sweep.runs.filter((_, i) => data[i][0].length);
      chart = new uPlot({
        width: Math.max(240, host.current.clientWidth - 16), height: 200,
        scales: { x: { time: false } },
        series: [{ label: 'step' }, ...runs.map((run, i) => ({ label: runLabel(run.args), stroke: PALETTE[i % PALETTE.length], width: 1.5, spanGaps: true }))],
        axes: [{ stroke: '#8b8b8b' }, { stroke: '#8b8b8b' }],
      }, joined, host.current);
    }, (err: unknown) => setError(String(err)));
    return () => {
      gone = true;
      chart?.destroy();
    };
  }, [sweep.id, metric, version]);
  return (
    <div class="sweep-chart" data-testid="sweep-chart" data-metric={metric}>
      {error && <div class="form-error">{error}</div>}
      <div ref={host} />
    </div>
  );
}
