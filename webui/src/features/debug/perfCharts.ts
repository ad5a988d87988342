// The live charts: CPU %, RSS MB and threads against time, and per-inference latency against
// the inference step. New data only marks the board dirty; it redraws at most once per frame.
// Before the first sample each chart still draws its axes (over a default range) and says so.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { latencies, samples } from './perf';

const AXIS = {
  stroke: '#8b8b8b',
  font: '11px system-ui, sans-serif',
  grid: { stroke: '#2f2f2f', width: 1 },
  ticks: { stroke: '#3c3c3c', width: 1, size: 4 },
};
const HEIGHT = 84;
// The axes' ranges while a chart has no data (uPlot draws no axis over an empty scale).
const EMPTY_X: uPlot.Range.MinMax = [0, 10];
const EMPTY_Y: uPlot.Range.MinMax = [0, 1];
const NO_SAMPLES = 'No samples yet';
const TWO_COLUMNS_FROM = 520;

interface ChartSpec {
  key: string;
  label: string;
  color: string;
  xLabel: string;
  data: () => [number[], number[]];
}

const SPECS: ChartSpec[] = [
  { key: 'cpu', label: 'CPU %', color: '#3794ff', xLabel: 's', data: () => series((s) => s.cpu) },
  { key: 'rss', label: 'RSS MB', color: '#73c991', xLabel: 's', data: () => series((s) => s.rss / 2 ** 20) },
  { key: 'threads', label: 'Threads', color: '#e2c08d', xLabel: 's', data: () => series((s) => s.threads) },
  { key: 'latency', label: 'Latency ms', color: '#c586c0', xLabel: 'step', data: () => [latencies.map((l) => l.step), latencies.map((l) => l.ms)] },
];

/** Seconds since the run's first sample, so the axis reads 0…n s. */
function series(pick: (s: (typeof samples)[number]) => number): [number[], number[]] {
  const t0 = samples.length ? samples[0].t : 0;
  return [samples.map((s) => +(s.t - t0).toFixed(2)), samples.map(pick)];
}

function options(spec: ChartSpec, width: number): uPlot.Options {
  return {
    width,
    height: HEIGHT,
    padding: [4, 10, 0, 0],
    legend: { show: false },
    cursor: { drag: { x: false, y: false } },
    scales: {
      // uPlot's own ranges once there is data, and the empty ones before.
      x: { time: false, range: (_u, min, max) => (min == null || max == null ? EMPTY_X : [min, max]) },
      y: { range: (_u, min, max) => (min == null || max == null ? EMPTY_Y : uPlot.rangeNum(min, max, 0.1, true)) },
    },
    axes: [{ ...AXIS, size: 24 }, { ...AXIS, size: 44 }],
    series: [{ label: spec.xLabel }, { label: spec.label, stroke: spec.color, width: 1.5, fill: `${spec.color}1a`, points: { show: false } }],
  };
}

export class PerfBoard {
  private readonly charts = new Map<string, uPlot>();
  private readonly resize: ResizeObserver;
  private frame = 0;

  constructor(private readonly host: HTMLElement) {
    for (const spec of SPECS) {
      const element = document.createElement('div');
      element.className = 'perf-chart';
      element.dataset.testid = 'perf-chart';
      element.dataset.metric = spec.key;
      const title = document.createElement('div');
      title.className = 'perf-chart-title';
      title.textContent = spec.label;
      title.style.color = spec.color;
      element.appendChild(title);
      const empty = document.createElement('div');
      empty.className = 'perf-chart-empty muted';
      empty.dataset.testid = 'perf-chart-empty';
      empty.textContent = NO_SAMPLES;
      element.appendChild(empty);
      host.appendChild(element);
      this.charts.set(spec.key, new uPlot(options(spec, this.width()), spec.data(), element));
    }
    this.resize = new ResizeObserver(() => this.fit());
    this.resize.observe(host);
    this.update();
  }

  /** Marks the charts dirty; the drawing happens on the next animation frame, once. */
  update(): void {
    if (!this.frame) this.frame = requestAnimationFrame(() => this.draw());
  }

  dispose(): void {
    cancelAnimationFrame(this.frame);
    this.resize.disconnect();
    this.charts.forEach((chart) => chart.destroy());
  }

  private draw(): void {
    this.frame = 0;
    for (const spec of SPECS) {
      const chart = this.charts.get(spec.key);
      const data = spec.data();
      chart?.setData(data);
      // How many points are drawn, for a test or a curious reader of the DOM.
      chart?.root.parentElement?.setAttribute('data-points', String(data[0].length));
      chart?.root.parentElement?.classList.toggle('has-data', data[0].length > 0);
    }
  }

  private width(): number {
    // Two charts side by side when there is room.
    const full = Math.max(200, this.host.clientWidth - 8);
    return full >= TWO_COLUMNS_FROM ? Math.floor(full / 2) - 8 : full;
  }

  private fit(): void {
    if (!this.host.clientWidth) return;
    const width = this.width();
    this.charts.forEach((chart) => chart.width !== width && chart.setSize({ width, height: HEIGHT }));
  }
}
