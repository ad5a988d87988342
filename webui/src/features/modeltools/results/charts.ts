// Bar charts with uPlot: the slowest ops of a benchmark and its latency distribution. A chart is
// sized to its host and follows it when the panel is resized.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

const AXIS = {
  stroke: '#8b8b8b',
  font: '11px system-ui, sans-serif',
  grid: { stroke: '#2f2f2f', width: 1 },
  ticks: { stroke: '#3c3c3c', width: 1, size: 4 },
};
const HEIGHT = 180;
// The width one x label needs (12 characters at 11 px).
const LABEL_PX = 78;

export interface BarChartSpec {
  /** x positions (bar centres) and heights. */
  x: number[];
  y: number[];
  xLabel: (x: number) => string;
  yLabel: string;
  color: string;
  /** Label of the x value in the legend when the pointer is over a bar. */
  legendX: (x: number) => string;
  xName: string;
}

function options(spec: BarChartSpec, width: number): uPlot.Options {
  const bars = uPlot.paths.bars!({ size: [0.8, 64], align: 0 });
  return {
    width,
    height: HEIGHT,
    padding: [8, 8, 0, 0],
    legend: { show: true, live: true },
    cursor: { drag: { x: false, y: false }, points: { show: false } },
    scales: { x: { time: false, range: (_u, min, max) => [min - 0.5 * step(spec.x), max + 0.5 * step(spec.x)] }, y: { range: (_u, _min, max) => [0, max * 1.08 || 1] } },
    axes: [
      { ...AXIS, size: 30, splits: (u) => thin(spec.x, Math.floor(u.width / LABEL_PX)), values: (_u, splits) => splits.map(spec.xLabel) },
      { ...AXIS, size: 48, label: spec.yLabel, labelSize: 14, labelFont: AXIS.font },
    ],
    series: [
      { label: spec.xName, value: (_u, v) => (v === null ? '—' : spec.legendX(v)) },
      { label: spec.yLabel, stroke: spec.color, fill: `${spec.color}bb`, width: 1, paths: bars, points: { show: false } },
    ],
  };
}

/** Every n-th position, so that at most ``room`` labels share the axis. */
function thin(x: number[], room: number): number[] {
  const every = Math.max(1, Math.ceil(x.length / Math.max(1, room)));
  return x.filter((_, i) => i % every === 0);
}

function step(x: number[]): number {
  return x.length > 1 ? x[1] - x[0] : 1;
}

/** Draws the chart into ``host``; returns a function that removes it. */
export function barChart(host: HTMLElement, spec: BarChartSpec): () => void {
  const chart = new uPlot(options(spec, Math.max(200, host.clientWidth)), [spec.x, spec.y], host);
  const resize = new ResizeObserver(() => {
    // A panel hidden in the dock has no width: keep the chart until it shows again.
    if (host.clientWidth && host.clientWidth !== chart.width) chart.setSize({ width: host.clientWidth, height: HEIGHT });
  });
  resize.observe(host);
  return () => {
    resize.disconnect();
    chart.destroy();
  };
}
