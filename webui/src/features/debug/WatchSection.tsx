// Tensor watchpoints in the Perf panel: pick a model and (optionally) ops, run it on the device,
// and read each watched op's output as the model waits there — shape, statistics, histogram,
// first values — then continue to the next or stop.
import { useState } from 'preact/hooks';
import type { WatchHit } from '../../api/devices';
import { DeviceInputs } from './DeviceInputs';
import { bench } from './perf';
import { ModelSelect, useProjectModels } from './projectModels';
import { pickedDevice, runState } from './run';
import { continueWatch, parseOps, startWatch, stopWatch, watchDone, watchHits, watchState } from './watch';

const SHOWN_VALUES = 16;
const LISTED_HITS = 50;

const num = (v: number) => (Math.abs(v) >= 1e4 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toExponential(3) : v.toFixed(4));

function Histogram({ hit }: { hit: WatchHit }) {
  if (!hit.histogram) return null;
  const { counts, edges } = hit.histogram;
  const top = Math.max(...counts, 1);
  return (
    <div class="watch-histogram" data-testid="watch-histogram" data-bins={counts.length}>
      {counts.map((count, i) => (
        <span key={i} class="watch-bin" style={{ height: `${(count / top) * 100}%` }} title={`${num(edges[i])} … ${num(edges[i + 1])}: ${count}`} />
      ))}
    </div>
  );
}

function HitCard({ hit }: { hit: WatchHit }) {
  return (
    <div class="watch-hit" data-testid="watch-hit" data-op={hit.op} data-op-type={hit.op_type}>
      <div class="watch-hit-title">
        <span class="mono">{hit.op}</span> <span class="muted">{hit.op_type}{hit.index ? ` · output ${hit.index}` : ''}</span>
        <span class="mono watch-shape" data-testid="watch-shape">{hit.shape.join('×') || 'scalar'}</span>
      </div>
      {hit.stats && (
        <div class="bench-stats mono" data-testid="watch-stats">
          {(['min', 'max', 'mean', 'std'] as const).map((name) => <span key={name}><span class="muted">{name}</span> {num(hit.stats![name])}</span>)}
        </div>
      )}
      <Histogram hit={hit} />
      <div class="watch-sample mono muted" title="The tensor's first values">
        {hit.sample.slice(0, SHOWN_VALUES).map(num).join('  ')}{hit.sample.length > SHOWN_VALUES ? '  …' : ''}
      </div>
    </div>
  );
}

function WatchForm() {
  const [models, model, setModel] = useProjectModels();
  const [ops, setOps] = useState('');
  const state = watchState.value;
  const known = bench.value?.ok ? bench.value.ops.map((op) => op.name) : [];
  const idleDisabled = !model || !pickedDevice.value || runState.value !== 'idle';
  return (
    <div class="bench-form">
      <ModelSelect models={models} model={model} onPick={setModel} testid="watch-model" />
      <input class="watch-ops" data-testid="watch-ops" list="watch-op-names" placeholder="every op, or names: conv1, relu2" value={ops} onInput={(ev) => setOps(ev.currentTarget.value)} />
      <datalist id="watch-op-names">{known.map((name) => <option key={name} value={name} />)}</datalist>
      {state === 'idle' && <button class="btn btn-small" data-testid="watch-start" disabled={idleDisabled} onClick={() => void startWatch(model, parseOps(ops))}>Watch tensors</button>}
      <DeviceInputs model={model} testid="watch-inputs" refused={watchDone.value?.ok === false ? watchDone.value.input : null} disabled={state !== 'idle'} />
      {state !== 'idle' && (
        <>
          <button class="btn btn-small" data-testid="watch-continue" disabled={state !== 'paused'} onClick={continueWatch}>Continue</button>
          <button class="btn btn-small" data-testid="watch-stop" onClick={stopWatch}>Stop</button>
        </>
      )}
    </div>
  );
}

export function WatchSection() {
  const hits = watchHits.value;
  const done = watchDone.value;
  const current = hits[hits.length - 1];
  return (
    <div class="watch-section" data-testid="watch-section" data-state={watchState.value} data-hits={hits.length}>
      <h2>Tensor watchpoints</h2>
      <WatchForm />
      {watchState.value === 'running' && <div class="muted">Running to the next watched op…</div>}
      {done && (
        <div class={done.ok ? 'muted' : 'form-error'} data-testid="watch-done">
          {done.ok ? `Finished: ${done.hits} tensor${done.hits === 1 ? '' : 's'} watched.` : done.error}
        </div>
      )}
      {current && <HitCard hit={current} />}
      {hits.length > 1 && (
        <div class="watch-history" data-testid="watch-history">
          {hits.slice(-LISTED_HITS).reverse().slice(1).map((hit, i) => (
            <div key={i} class="watch-history-row mono" title={hit.stats ? `mean ${num(hit.stats.mean)}, std ${num(hit.stats.std)}` : ''}>
              <span>{hit.op}</span> <span class="muted">{hit.op_type}</span> <span>{hit.shape.join('×')}</span>
              {hit.stats && <span class="muted">{num(hit.stats.min)} … {num(hit.stats.max)}</span>}
            </div>
          ))}
        </div>
      )}
    </div>
  );
}
