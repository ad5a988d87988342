// Tensor watchpoints on the device: the model runs op by op and stops after each watched op's
// output (its shape, statistics, histogram and first values come back) until continued.
import { signal } from '@preact/signals';
import type { WatchDone, WatchHit } from '../../api/devices';
import { session } from '../../kernel/session';
import { feedsOf } from './DeviceInputs';
import { deploy, sid } from './run';

// The bins and sampled values asked for each watched tensor.
const BINS = 32;
const SAMPLE = 64;
const KEPT_HITS = 500;

export type WatchState = 'idle' | 'running' | 'paused';

export const watchState = signal<WatchState>('idle');
export const watchHits = signal<WatchHit[]>([]);
export const watchDone = signal<WatchDone | null>(null);

/** Op names from a comma- or space-separated list; none means every op. */
export function parseOps(text: string): string[] {
  return text.split(/[\s,]+/).filter(Boolean);
}

export async function startWatch(model: string, ops: string[]): Promise<void> {
  if (!(await deploy())) return;
  watchHits.value = [];
  watchDone.value = null;
  watchState.value = 'running';
  session().socket.send('devices', 'watch.start', { sid: sid.value, model, ops, bins: BINS, sample: SAMPLE, ...feedsOf(model) });
}

export function continueWatch(): void {
  watchState.value = 'running';
  session().socket.send('devices', 'watch.continue', { sid: sid.value });
}

export function stopWatch(): void {
  session().socket.send('devices', 'watch.stop', { sid: sid.value });
}

function fail(message: string): void {
  watchDone.value = { sid: sid.value ?? '', ok: false, hits: watchHits.value.length, error: message, code: null, input: null };
  watchState.value = 'idle';
}

export function wireWatchEvents(): void {
  session().socket.on('devices', (msg) => {
    if (!('sid' in msg.data) || msg.data.sid !== sid.value) return;
    if (msg.type === 'watch.hit') {
      watchHits.value = [...watchHits.value.slice(-(KEPT_HITS - 1)), msg.data];
      watchState.value = 'paused';
    } else if (msg.type === 'watch.done') {
      watchDone.value = msg.data;
      watchState.value = 'idle';
    } else if (watchState.value !== 'idle' && msg.type === 'error') {
      fail(msg.data.message);
    } else if (watchState.value !== 'idle' && msg.type === 'session.state' && msg.data.state !== 'open') {
      fail('the device disconnected');
    }
  });
}
