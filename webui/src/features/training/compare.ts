// Two or more jobs side by side: their metric series (read as the job view reads them), the
// last value of each metric, and what differs between their commands, environments and configs.
import { getMetrics, type Job } from '../../api/jobs';
import { MetricSeries, type Series } from './metrics';

export interface Compared {
  job: Job;
  series: Map<string, Series>;
}

export async function readCompared(list: Job[]): Promise<Compared[]> {
  const metrics = await Promise.all(list.map((job) => getMetrics(job.id)));
  return list.map((job, i) => {
    const series = new MetricSeries();
    series.add(metrics[i].points);
    return { job, series: series.series };
  });
}

/** Every metric key any of the jobs reported, in first-seen order. */
export const metricKeys = (compared: Compared[]): string[] => [...new Set(compared.flatMap((c) => [...c.series.keys()]))];

export const lastValue = (series: Series | undefined): number | null =>
  series && series.values.length ? series.values[series.values.length - 1] : null;

/** Lower is better for losses and errors; higher for anything else (accuracy, top-1, …). */
export const lowerIsBetter = (key: string): boolean => /loss|err|mse|mae|perplexity|latency/i.test(key);

/** The column holding a row's best value, or -1 when fewer than two jobs have one. */
export function bestIndex(key: string, values: (number | null)[]): number {
  const present = values.map((v, i) => [v, i] as const).filter(([v]) => v !== null) as (readonly [number, number])[];
  if (present.length < 2) return -1;
  const sign = lowerIsBetter(key) ? 1 : -1;
  return present.reduce((best, cur) => (sign * cur[0] < sign * best[0] ? cur : best))[1];
}

export interface Difference {
  label: string;
  values: string[];
}

const show = (value: unknown): string => (value === undefined ? '—' : typeof value === 'string' ? value : JSON.stringify(value));

/** The rows that differ between the jobs: the command, each environment variable, each config key. */
export function differences(list: Job[]): Difference[] {
  const rows: Difference[] = [];
  const add = (label: string, values: unknown[]) => {
    const shown = values.map(show);
    if (new Set(shown).size > 1) rows.push({ label, values: shown });
  };
  add('command', list.map((j) => j.command));
  const envs = list.map((j) => (j.config.env ?? {}) as Record<string, unknown>);
  for (const key of [...new Set(envs.flatMap((e) => Object.keys(e)))].sort()) add(`env ${key}`, envs.map((e) => e[key]));
  const keys = [...new Set(list.flatMap((j) => Object.keys(j.config)))].filter((k) => k !== 'env').sort();
  for (const key of keys) add(`config ${key}`, list.map((j) => j.config[key]));
  return rows;
}
