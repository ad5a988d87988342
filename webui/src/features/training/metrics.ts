// A job's metric points as one series per key against `step`. Points arrive twice around the
// moment a view opens (REST and socket), so a point whose step a series already has is skipped.
import type { MetricPoint } from '../../api/jobs';

/** Keys that count steps rather than measure anything: never charted on their own. */
const AXIS_KEYS = new Set(['step', 'epoch']);

export interface Series {
  key: string;
  steps: number[];
  values: number[];
}

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
        if (AXIS_KEYS.has(key) || typeof value !== 'number' || !Number.isFinite(value)) continue;
        if (this.append(key, step, value)) changed.add(key);
      }
    }
    return changed;
  }

  private append(key: string, step: number, value: number): boolean {
    let series = this.series.get(key);
    if (!series) {
      series = { key, steps: [], values: [] };
      this.series.set(key, series);
    }
    const last = series.steps.length ? series.steps[series.steps.length - 1] : -Infinity;
    if (step <= last) return false;
    series.steps.push(step);
    series.values.push(value);
    return true;
  }
}
