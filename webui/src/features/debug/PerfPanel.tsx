// The Perf panel: live charts of the running program, an on-device benchmark of a model with
// its per-op latency bars, tensor watchpoints, and CSV downloads of everything shown.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { BenchResult } from '../../api/devices';
import { NoDevice } from '../devices/NoDevice';
import { deviceById } from '../../kernel/devices';
import { BackendSelect } from '../../ui/BackendSelect';
import { DeviceInputs, feedsOf, RanWith } from './DeviceInputs';
import { session } from '../../kernel/session';
import { bench, benchRunning, download, dropped, latencies, latencyCsv, opsCsv, perfVersion, samples, samplesCsv } from './perf';
import { PerfBoard } from './perfCharts';
import { ModelSelect, useProjectModels } from './projectModels';
import { WatchSection } from './WatchSection';
import { deploy, pickedDevice, runState, sid } from './run';
import { DevicePicker } from './RunToolbar';

const TOP_OPS = 30;

function Latest() {
  void perfVersion.value;
  const last = samples[samples.length - 1];
  if (!last) return <span class="muted">No samples yet: run a program on a device.</span>;
  return (
    <span class="perf-latest mono" data-testid="perf-latest">
      CPU {last.cpu.toFixed(0)}% · RSS {(last.rss / 2 ** 20).toFixed(1)} MB · {last.threads} thread{last.threads === 1 ? '' : 's'}
      {dropped.value > 0 && <span class="muted"> · {dropped.value} samples dropped</span>}
    </span>
  );
}

function OpBars({ result }: { result: BenchResult }) {
  const ops = result.ops.slice(0, TOP_OPS);
  const max = Math.max(...ops.map((o) => o.ms), 1e-9);
  return (
    <div class="op-bars" data-testid="op-bars">
      {ops.map((op) => (
        <div key={op.name} class="op-row" title={`${op.name} (${op.type}): ${op.ms.toFixed(3)} ms, ${op.percent.toFixed(1)}%`}>
          <span class="op-name mono">{op.name}</span>
          <span class="op-type muted">{op.type}</span>
          <span class="op-bar-track"><span class="op-bar" style={{ width: `${(op.ms / max) * 100}%` }} /></span>
          <span class="op-ms mono">{op.ms.toFixed(3)} ms</span>
        </div>
      ))}
      {result.ops.length > TOP_OPS && <div class="muted op-more">and {result.ops.length - TOP_OPS} faster ops (in the CSV)</div>}
    </div>
  );
}

function BenchSummary({ result }: { result: BenchResult }) {
  if (!result.ok) return <div class="form-error" data-testid="bench-error" data-code={result.code ?? ''}>{result.error}</div>;
  const stats: [string, number | null][] = [['min', result.min_ms], ['median', result.median_ms], ['p90', result.p90_ms], ['p99', result.p99_ms], ['mean', result.mean_ms]];
  return (
    <>
      <div class="bench-stats mono" data-testid="bench-stats">
        {stats.map(([name, ms]) => <span key={name}><span class="muted">{name}</span> {ms === null ? '—' : `${ms.toFixed(2)} ms`}</span>)}
        <span class="muted">{result.loops} loops</span>
        {result.backend && <span class="muted" data-testid="bench-ran-on">on {result.backend}{result.backend === 'CPU' ? `, ${result.threads} threads` : ''}</span>}
        <RanWith shapes={result.input_shapes} sources={result.inputs} testid="bench-ran-with" />
      </div>
      <OpBars result={result} />
    </>
  );
}

function BenchForm() {
  const [models, model, setModel] = useProjectModels();
  const [threads, setThreads] = useState(4);
  const [backend, setBackend] = useState('CPU');
  // The device's backends, as its agent reported them when it connected.
  const reported = deviceById(pickedDevice.value)?.info.backends ?? null;
  const run = async () => {
    if (!(await deploy())) return;
    benchRunning.value = true;
    session().socket.send('devices', 'bench.start', { sid: sid.value, model, threads, backend, loops: 50, warmup: 5, per_op: true, ...feedsOf(model) });
  };
  const why = !pickedDevice.value ? 'Pick a device first.' : !model ? 'The project has no .mnn model to benchmark: convert one first.'
    : benchRunning.value ? 'A benchmark is running.' : runState.value !== 'idle' ? 'The device is busy with a run: stop it first.' : null;
  const disabled = why !== null;
  return (
    <div class="bench-form">
      <DevicePicker />
      <ModelSelect models={models} model={model} onPick={setModel} testid="bench-model" />
      <label class="muted">backend <BackendSelect backends={pickedDevice.value ? reported : null} value={backend} testid="bench-backend" onChange={setBackend}
        unknown={pickedDevice.value ? 'the device did not report its backends (no MNN, or an older agent)' : undefined} /></label>
      <label class="muted">threads <input type="number" min={1} max={64} value={threads} class="bench-threads" onInput={(ev) => setThreads(Number(ev.currentTarget.value) || 1)} /></label>
      <button class="btn btn-small" data-testid="bench-start" disabled={disabled} title={why ?? 'Benchmark the model on the device'} onClick={() => void run()}>{benchRunning.value ? 'Benchmarking…' : 'Benchmark on device'}</button>
      {why && !benchRunning.value && <span class="muted bench-why" data-testid="bench-why">{why}</span>}
      <DeviceInputs model={model} testid="bench-inputs" refused={bench.value?.ok === false ? bench.value.input : null} disabled={benchRunning.value} />
    </div>
  );
}

export function PerfPanel() {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const board = new PerfBoard(host.current!);
    const stop = perfVersion.subscribe(() => board.update());
    return () => {
      stop();
      board.dispose();
    };
  }, []);
  const result = bench.value;
  return (
    <div class="perf-panel" data-testid="perf-panel">
      <div class="perf-toolbar">
        <Latest />
        <span class="status-spacer" />
        <button class="btn btn-small" data-testid="perf-export" onClick={() => download('perf-samples.csv', samplesCsv())}>Samples CSV</button>
        {latencies.length > 0 && <button class="btn btn-small" onClick={() => download('latency.csv', latencyCsv())}>Latency CSV</button>}
        {result?.ok && <button class="btn btn-small" data-testid="ops-export" onClick={() => download('op-latency.csv', opsCsv(result))}>Ops CSV</button>}
      </div>
      <div class="perf-body">
        <div class="perf-charts" ref={host} />
        <div class="perf-bench">
          <h2>On-device benchmark</h2>
          <NoDevice testid="perf-no-device" needs="The live charts, the benchmark and the watchpoints measure a program on a device." />
          <BenchForm />
          {result && <BenchSummary result={result} />}
          <WatchSection />
        </div>
      </div>
    </div>
  );
}
