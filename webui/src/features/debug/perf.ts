// What the Perf panel shows, kept while it is closed: the current run's perf samples, the
// per-inference latencies its `MNNWB_METRIC {"latency_ms": …}` lines report, and the last
// on-device benchmark. Views subscribe to `perfVersion` and read the arrays.
import { signal } from '@preact/signals';
import type { BenchResult, PerfSample } from '../../api/devices';
import { session } from '../../kernel/session';
import { sid } from './run';

// Ten minutes at the agent's 10 Hz.
const MAX_SAMPLES = 6000;
const METRIC_PREFIX = 'MNNWB_METRIC ';

export const samples: PerfSample[] = [];
export const latencies: { step: number; ms: number }[] = [];
export const bench = signal<BenchResult | null>(null);
export const benchRunning = signal(false);
export const dropped = signal(0);
/** Bumped when samples or latencies were added (views redraw at most once per frame). */
export const perfVersion = signal(0);
let partialLine = '';

function resetRun(): void {
  samples.length = 0;
  latencies.length = 0;
  partialLine = '';
  dropped.value = 0;
  perfVersion.value += 1;
}

function addSamples(batch: PerfSample[]): void {
  samples.push(...batch);
  if (samples.length > MAX_SAMPLES) samples.splice(0, samples.length - MAX_SAMPLES);
  perfVersion.value += 1;
}

function readMetricLine(line: string): void {
  if (!line.startsWith(METRIC_PREFIX)) return;
  try {
    const point = JSON.parse(line.slice(METRIC_PREFIX.length)) as Record<string, unknown>;
    if (typeof point.latency_ms !== 'number') return;
    const step = typeof point.step === 'number' ? point.step : latencies.length;
    latencies.push({ step, ms: point.latency_ms });
    perfVersion.value += 1;
  } catch {
    // Not a metric after all: program output that happens to start the same way.
  }
}

function onStdout(text: string): void {
  // Log chunks are not line-aligned.
  const lines = (partialLine + text).split('\n');
  partialLine = lines.pop() ?? '';
  lines.forEach((line) => readMetricLine(line.replace(/\r$/, '')));
}

export function wirePerfEvents(): void {
  const { socket } = session();
  socket.on('perf', (msg) => {
    if (msg.data.sid === sid.value) addSamples(msg.data.samples);
  });
  socket.on('log', (msg) => {
    if (msg.type === 'job.log' || msg.data.sid !== sid.value) return;
    if (msg.type === 'run.started') resetRun();
    if (msg.type === 'log' && msg.data.stream === 'stdout') onStdout(msg.data.text);
  });
  socket.on('devices', (msg) => {
    if (!('sid' in msg.data) || msg.data.sid !== sid.value) return;
    if (msg.type === 'bench.result') {
      bench.value = msg.data;
      benchRunning.value = false;
    } else if (msg.type === 'error' && (msg.data.ref === 'bench.start' || benchRunning.value)) {
      benchRunning.value = false;
    }
  });
  socket.on('sys', (msg) => {
    if (msg.type === 'dropped') dropped.value += msg.data.count;
  });
}

function csv(rows: (string | number)[][]): string {
  const cell = (v: string | number) => (typeof v === 'string' && /[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : String(v));
  return rows.map((row) => row.map(cell).join(',')).join('\n') + '\n';
}

export function samplesCsv(): string {
  return csv([['t', 'cpu_percent', 'rss_mb', 'threads'], ...samples.map((s) => [s.t, s.cpu, +(s.rss / 2 ** 20).toFixed(3), s.threads])]);
}

export function latencyCsv(): string {
  return csv([['step', 'latency_ms'], ...latencies.map((l) => [l.step, l.ms])]);
}

export function opsCsv(result: BenchResult): string {
  return csv([['name', 'type', 'ms', 'percent', 'mflops'], ...result.ops.map((o) => [o.name, o.type, o.ms, o.percent, o.mflops])]);
}

export function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  window.setTimeout(() => URL.revokeObjectURL(url), 1000);
}
