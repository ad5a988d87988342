// A job's metric points as one series per key against `step`. Points arrive twice around the
// moment a view opens (REST and socket), so a point whose step a series already has is skipped.
import type { MetricPoint } from '../../api/jobs';

/** Keys that count steps rather than measure anything: never charted on their own. */
const AXIS_KEYS = new Set(['step', 'epoch']);

export interface Series {
  key: string;
  steps: number[];
  values: number[];
  /** The first step whose value was NaN or ±Infinity (the server sends those as strings). */
  diverged: { step: number; value: string } | null;
}

const NON_FINITE = new Set(['NaN', 'Infinity', '-Infinity']);

export class MetricSeries {
  readonly series = new Map<string, Series>();
  private counter = 0;

  clear(): void {
    this.series.clear();
    this.counter = 0;
  }

  /** Adds points in print order; returns the keys whose series changed. */
  add(points: MetricPoint[]): Set<string> {
    const changed = new Set<string>();
    for (const point of points) {
      const step = typeof point.step === 'number' ? point.step : this.counter;
      this.counter = Math.max(this.counter, step + 1);
      for (const [key, value] of Object.entries(point)) {
        if (AXIS_KEYS.has(key)) continue;
        if (typeof value === 'string' && NON_FINITE.has(value) && this.diverge(key, step, value)) changed.add(key);
        if (typeof value !== 'number' || !Number.isFinite(value)) continue;
        if (this.append(key, step, value)) changed.add(key);
      }
    }
    return changed;
  }

  private get(key: string): Series {
    let series = this.series.get(key);
    if (!series) {
      series = { key, steps: [], values: [], diverged: null };
      this.series.set(key, series);
    }
    return series;
  }

  private diverge(key: string, step: number, value: string): boolean {
    const series = this.get(key);
    if (series.diverged && series.diverged.step <= step) return false;
    series.diverged = { step, value };
    return true;
  }

  private append(key: string, step: number, value: number): boolean {
    const series = this.get(key);
    const last = series.steps.length ? series.steps[series.steps.length - 1] : -Infinity;
    if (step <= last) return false;
    series.steps.push(step);
    series.values.push(value);
    return true;
  }
}
