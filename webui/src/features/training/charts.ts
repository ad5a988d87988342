// One uPlot chart per metric key inside a host element. New points only mark charts dirty; they
// are redrawn together at most once per animation frame, however fast the points arrive.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { MetricPoint } from '../../api/jobs';
import { MetricSeries, type Series } from './metrics';

const PALETTE = ['#3794ff', '#e2c08d', '#73c991', '#c586c0', '#f48771', '#4fc1ff'];
// Charts share the column's height, within these bounds (the column scrolls past them).
const MIN_HEIGHT = 84;
const MAX_HEIGHT = 240;
const LEGEND_HEIGHT = 22;
const AXIS = {
  stroke: '#8b8b8b',
  font: '11px system-ui, sans-serif',
  grid: { stroke: '#2f2f2f', width: 1 },
  ticks: { stroke: '#3c3c3c', width: 1, size: 4 },
};

// Steps are whole numbers: never put a tick between two of them.
const STEP_INCREMENTS = [1, 2, 5].flatMap((m) => [1, 10, 100, 1e3, 1e4, 1e5, 1e6].map((p) => m * p)).sort((a, b) => a - b);

/** With no cursor on the chart, its legend shows the latest values rather than blanks. */
function showLatest(chart: uPlot): void {
  const count = chart.data[0].length;
  if (chart.cursor.idx == null && count) chart.setLegend({ idx: count - 1 });
}

/** A red line at the step where the metric turned NaN or infinite. */
function markDivergence(diverged: () => Series['diverged']) {
  return (chart: uPlot): void => {
    const mark = diverged();
    if (!mark) return;
    const x = chart.valToPos(mark.step, 'x', true);
    const { ctx, bbox } = chart;
    ctx.save();
    ctx.strokeStyle = '#f14c4c';
    ctx.setLineDash([4, 3]);
    ctx.beginPath();
    ctx.moveTo(x, bbox.top);
    ctx.lineTo(x, bbox.top + bbox.height);
    ctx.stroke();
    ctx.restore();
  };
}

function chartOptions(key: string, color: string, size: { width: number; height: number }, diverged: () => Series['diverged']): uPlot.Options {
  return {
    ...size,
    padding: [6, 16, 0, 0],
    legend: { show: true, live: true },
    cursor: { drag: { x: true, y: false } },
    scales: { x: { time: false } },
    axes: [{ ...AXIS, size: 26, incrs: STEP_INCREMENTS }, { ...AXIS, size: 46 }],
    hooks: { setCursor: [showLatest], draw: [markDivergence(diverged)] },
    series: [{ label: 'step' }, { label: key, stroke: color, width: 1.5, fill: `${color}1a` }],
  };
}

export class ChartBoard {
  private readonly metrics = new MetricSeries();
  private readonly charts = new Map<string, uPlot>();
  private readonly dirty = new Set<string>();
  private readonly resize: ResizeObserver;
  private frame = 0;
  private disposed = false;

  constructor(
    private readonly host: HTMLElement,
    private readonly onKeys: (keys: string[]) => void,
  ) {
    this.resize = new ResizeObserver(() => this.fit());
    this.resize.observe(host);
  }

  add(points: MetricPoint[]): void {
    for (const key of this.metrics.add(points)) this.dirty.add(key);
    this.schedule();
  }

  /** Starts over from `points`, all of the job's so far (a fresh read from the server). */
  replace(points: MetricPoint[]): void {
    this.metrics.clear();
    for (const key of this.charts.keys()) this.dirty.add(key);
    this.add(points);
  }

  dispose(): void {
    this.disposed = true;
    cancelAnimationFrame(this.frame);
    this.resize.disconnect();
    this.charts.forEach((chart) => chart.destroy());
    this.charts.clear();
  }

  private schedule(): void {
    if (this.dirty.size && !this.frame && !this.disposed) this.frame = requestAnimationFrame(() => this.draw());
  }

  private draw(): void {
    this.frame = 0;
    const before = this.charts.size;
    for (const key of this.dirty) {
      const series = this.metrics.series.get(key) ?? { key, steps: [], values: [], diverged: null };
      const chart = this.charts.get(key) ?? this.create(key);
      chart.setData([series.steps, series.values]);
      showLatest(chart);
      this.note(key, series);
    }
    this.dirty.clear();
    if (this.charts.size !== before) {
      this.fit();
      this.onKeys([...this.charts.keys()]);
    }
  }

  /** Says in words what the red line shows: the metric diverged, and where. */
  private note(key: string, series: Series): void {
    const element = this.host.querySelector<HTMLElement>(`[data-testid=metric-chart][data-metric="${CSS.escape(key)}"]`);
    if (!element) return;
    let note = element.querySelector<HTMLElement>('.metric-diverged');
    if (!series.diverged) return note?.remove();
    if (!note) {
      note = document.createElement('div');
      note.className = 'metric-diverged';
      note.dataset.testid = 'metric-diverged';
      element.appendChild(note);
    }
    note.textContent = `${key} diverged at step ${series.diverged.step} (${series.diverged.value})`;
  }

  private create(key: string): uPlot {
    const element = document.createElement('div');
    element.className = 'metric-chart';
    element.dataset.testid = 'metric-chart';
    element.dataset.metric = key;
    this.host.appendChild(element);
    const color = PALETTE[this.charts.size % PALETTE.length];
    const diverged = () => this.metrics.series.get(key)?.diverged ?? null;
    const chart = new uPlot(chartOptions(key, color, this.size(this.charts.size + 1), diverged), [[], []], element);
    this.charts.set(key, chart);
    return chart;
  }

  private size(count: number): { width: number; height: number } {
    const share = Math.floor(this.host.clientHeight / Math.max(1, count)) - LEGEND_HEIGHT;
    return {
      width: Math.max(160, this.host.clientWidth - 16),
      height: Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, share)),
    };
  }

  private fit(): void {
    // A panel hidden in the dock has no size: keep the charts as they are until it shows again.
    if (!this.host.clientWidth) return;
    const size = this.size(this.charts.size);
    this.charts.forEach((chart) => {
      if (chart.width !== size.width || chart.height !== size.height) chart.setSize(size);
    });
  }
}
