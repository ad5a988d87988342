// The Run and Debug toolbar: device picker, command line, Deploy / Run / Debug / Stop, and while
// debugging the step controls (F5, F10, F11, Shift+F11).
import { useEffect } from 'preact/hooks';
import { devices, watchDevices } from '../../kernel/devices';
import { opener } from '../../kernel/openers';
import { debugState, step } from './debugger';
import { busy, commandLine, deploy, lastSync, pickDevice, pickedDevice, runArgv, runState, start, stop } from './run';

/** The tab's device: one choice shared by Run and Debug, Perf, the on-device benchmark and the
 * MNN-LLM chat and benchmark, kept per browser tab across reloads (see `pickDevice`).
 * `noneLabel` names the empty choice (the LLM panel runs on this machine then). */
export function DevicePicker({ noneLabel = 'Pick a device…' }: { noneLabel?: string }) {
  useEffect(() => watchDevices(), []);
  const picked = pickedDevice.value;
  const list = devices.value;
  const unknown = picked && !list.some((d) => d.id === picked);
  return (
    <select class="run-device" data-testid="device-picker" value={picked ?? ''} title="The device to run on"
      onChange={(ev) => {
        const value = ev.currentTarget.value;
        if (value === '__pair') {
          opener('devices')();
          ev.currentTarget.value = picked ?? '';
          return;
        }
        pickDevice(value || null);
      }}>
      <option value="">{noneLabel}</option>
      {unknown && <option value={picked}>(unknown device)</option>}
      {list.map((d) => (
        <option key={d.id} value={d.id}>{d.online ? '● ' : '○ '}{d.name}{d.online ? '' : ' (offline)'}</option>
      ))}
      <option value="__pair">Manage devices…</option>
    </select>
  );
}

function StepControls() {
  const state = debugState.value;
  const stopped = state === 'stopped';
  return (
    <div class="debug-controls" data-testid="debug-controls" data-state={state}>
      {stopped ? (
        <button class="icon-btn dbg-continue" title="Continue (F5)" aria-label="Continue" data-testid="debug-continue" onClick={() => step('continue')}>▶</button>
      ) : (
        <button class="icon-btn dbg-pause" title="Pause (F6)" aria-label="Pause" data-testid="debug-pause" disabled={state !== 'running'} onClick={() => step('pause')}>❚❚</button>
      )}
      <button class="icon-btn dbg-step" title="Step Over (F10)" aria-label="Step Over" data-testid="debug-step-over" disabled={!stopped} onClick={() => step('next')}>↷</button>
      <button class="icon-btn dbg-step" title="Step Into (F11)" aria-label="Step Into" data-testid="debug-step-into" disabled={!stopped} onClick={() => step('stepIn')}>↓</button>
      <button class="icon-btn dbg-step" title="Step Out (Shift+F11)" aria-label="Step Out" data-testid="debug-step-out" disabled={!stopped} onClick={() => step('stepOut')}>↑</button>
      <button class="icon-btn dbg-stop" title="Stop (Shift+F5)" aria-label="Stop" data-testid="debug-stop" onClick={stop}>■</button>
    </div>
  );
}

function syncNote(): string {
  const sync = lastSync.value;
  if (runState.value === 'deploying') return 'Deploying…';
  if (!sync) return '';
  return `Deployed ${sync.sent.length}/${sync.files} files${sync.deleted.length ? `, ${sync.deleted.length} deleted` : ''}`;
}

export function RunToolbar() {
  const running = runState.value === 'running' || runState.value === 'starting';
  const canStart = Boolean(pickedDevice.value) && !busy.value;
  const argv = runArgv.value;
  return (
    <div class="run-toolbar" data-testid="run-toolbar">
      <div class="run-row">
        <DevicePicker />
        <button class="btn btn-small" data-testid="run-deploy" title="Copy the project's changed files to the device" disabled={!canStart} onClick={() => void deploy()}>Deploy</button>
      </div>
      <div class="run-row">
        <input class="run-command mono" data-testid="run-command" value={commandLine.value}
          placeholder={argv.length ? `python ${argv.join(' ')}` : 'python main.py'} title="Command line (empty: the current file)"
          onInput={(ev) => (commandLine.value = ev.currentTarget.value)} />
      </div>
      <div class="run-row">
        <button class="btn btn-small btn-run" data-testid="run-start" disabled={!canStart} onClick={() => void start(false)}>▶ Run</button>
        <button class="btn btn-small btn-debug" data-testid="debug-start" title="Start debugging (F5)" disabled={!canStart} onClick={() => void start(true)}>⬣ Debug</button>
        <button class="btn btn-small" data-testid="run-stop" title="Stop (Shift+F5)" disabled={!running} onClick={stop}>■ Stop</button>
      </div>
      <div class="run-state muted" data-testid="run-state" data-state={runState.value}>{syncNote()}</div>
      {debugState.value !== 'inactive' && <StepControls />}
    </div>
  );
}
