// The parts of the new-job and sweep dialogs that are about Ray: the backend choice (with the
// reason a backend is unavailable), the entrypoint resources, running a snapshot of the work
// tree, and the commit step when the tree has uncommitted changes.
import { useEffect, useState } from 'preact/hooks';
import { listBackends, type BackendInfo } from '../../api/ray';

export interface RayChoice {
  num_cpus: string;
  num_gpus: string;
  memory_mb: string;
  snapshot: boolean;
}

export const NO_RAY_CHOICE: RayChoice = { num_cpus: '', num_gpus: '', memory_mb: '', snapshot: false };

export function rayConfig(choice: RayChoice): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  if (choice.num_cpus) config.num_cpus = Number(choice.num_cpus);
  if (choice.num_gpus) config.num_gpus = Number(choice.num_gpus);
  if (choice.memory_mb) config.memory_mb = Number(choice.memory_mb);
  if (choice.snapshot) config.snapshot = true;
  return config;
}

export function BackendPicker({ value, onChange, only }: { value: string; onChange: (b: string) => void; only?: string[] }) {
  const [backends, setBackends] = useState<BackendInfo[]>([
    { name: 'local', label: 'This machine', available: true, hint: null },
    { name: 'pai-dlc', label: 'PAI-DLC cluster', available: true, hint: null },
  ]);
  useEffect(() => {
    listBackends().then(setBackends, () => undefined);
  }, []);
  return (
    <div class="segmented" role="tablist">
      {backends.filter((b) => !only || only.includes(b.name)).map((b) => (
        <button key={b.name} type="button" role="tab" aria-selected={value === b.name} class={value === b.name ? 'active' : ''}
          data-testid={`job-backend-${b.name}`} disabled={!b.available} title={b.hint ?? undefined} onClick={() => onChange(b.name)}>
          {b.label}
        </button>
      ))}
    </div>
  );
}

function NumberField(props: { label: string; testid: string; value: string; set: (v: string) => void; step?: string }) {
  return (
    <label class="field field-narrow">
      <span>{props.label}</span>
      <input type="number" min={0} step={props.step ?? 'any'} data-testid={props.testid} value={props.value}
        onInput={(ev) => props.set(ev.currentTarget.value)} />
    </label>
  );
}

export function RayFields({ choice, set, onSettings }: { choice: RayChoice; set: (c: RayChoice) => void; onSettings: () => void }) {
  return (
    <>
      <div class="field-row">
        <NumberField label="CPUs" testid="ray-cpus" value={choice.num_cpus} set={(num_cpus) => set({ ...choice, num_cpus })} />
        <NumberField label="GPUs" testid="ray-gpus" value={choice.num_gpus} set={(num_gpus) => set({ ...choice, num_gpus })} />
        <NumberField label="Memory (MiB)" testid="ray-memory" step="1" value={choice.memory_mb} set={(memory_mb) => set({ ...choice, memory_mb })} />
      </div>
      <label class="checkbox">
        <input type="checkbox" data-testid="ray-snapshot" checked={choice.snapshot} onChange={(ev) => set({ ...choice, snapshot: ev.currentTarget.checked })} />
        Run the work tree as it is (uncommitted changes included)
      </label>
      {choice.snapshot && <p class="field-hint job-warning" data-testid="ray-snapshot-warning">A snapshot is not a commit: this run cannot be reproduced from Git later.</p>}
      <p class="field-hint">
        The job runs the project's commit on the cluster; its outputs come back through the storage in the{' '}
        <button type="button" class="btn-link" data-testid="new-job-ray-settings" onClick={onSettings}>Ray settings</button>.
      </p>
    </>
  );
}

const LISTED = 8;

/** When the tree has changes: commit them all and run that commit, or go back. */
export function CommitStep(props: { files: string[]; busy: boolean; error: string | null; onBack: () => void; onConfirm: (message: string) => void }) {
  const [message, setMessage] = useState('');
  return (
    <form class="form" data-testid="commit-step" onSubmit={(ev) => { ev.preventDefault(); if (message.trim()) props.onConfirm(message.trim()); }}>
      <p class="modal-message">A Ray job runs a commit, and these files have uncommitted changes:</p>
      <ul class="push-files">
        {props.files.slice(0, LISTED).map((path) => <li key={path} class="mono">{path}</li>)}
        {props.files.length > LISTED && <li class="muted">and {props.files.length - LISTED} more</li>}
      </ul>
      <label class="field">
        <span>Commit message</span>
        <input data-testid="push-message" value={message} autoFocus onInput={(ev) => setMessage(ev.currentTarget.value)} />
      </label>
      {props.error && <div class="form-error" data-testid="push-error">{props.error}</div>}
      <div class="modal-actions">
        <button type="button" class="btn" onClick={props.onBack}>Back</button>
        <button type="submit" class="btn btn-primary" data-testid="push-confirm" disabled={!message.trim() || props.busy}>
          {props.busy ? 'Committing…' : 'Commit and start'}
        </button>
      </div>
    </form>
  );
}
