// A sweep: one command and a grid of argument values (`--lr 0.1,0.01 --batch 32,64`), one job
// per combination, on any backend.
import { useState } from 'preact/hooks';
import { ApiError } from '../../api/client';
import { createSweep } from '../../api/ray';
import { Modal } from '../../ui/dialogs';
import { session, pid } from '../../kernel/session';
import { describeError } from './actions';
import { openDialog } from './dialogState';
import { useDefaultCommand } from './NewJobDialog';
import { BackendPicker, CommitStep, NO_RAY_CHOICE, rayConfig, RayFields, type RayChoice } from './RayFields';
import { loadJobs } from './store';
import { loadSweeps, view } from './sweeps';

export function SweepDialog() {
  const [backend, setBackend] = useState('ray');
  const [command, setCommand] = useState<string | null>(session().project.template ? null : '');
  const [grid, setGrid] = useState('--lr 0.1,0.01 --batch 32,64');
  const [ray, setRay] = useState<RayChoice>(NO_RAY_CHOICE);
  const [error, setError] = useState<string | null>(null);
  const [notCommitted, setNotCommitted] = useState<string[] | null>(null);
  const [busy, setBusy] = useState(false);
  useDefaultCommand(setCommand);
  const close = () => (openDialog.value = null);
  const start = async (extra: { commit_and_push?: boolean; message?: string } = {}) => {
    setBusy(true);
    try {
      await createSweep(pid(), { backend, command: command?.trim() || undefined, grid, config: backend === 'ray' ? rayConfig(ray) : {}, ...extra });
      view.value = 'sweeps';
      await Promise.all([loadJobs(), loadSweeps()]);
      close();
    } catch (err) {
      if (err instanceof ApiError && err.code === 'not_committed') setNotCommitted(err.body.uncommitted as string[]);
      else setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  if (notCommitted) {
    return (
      <Modal title="Commit first" testid="sweep-dialog" onClose={close}>
        <CommitStep files={notCommitted} busy={busy} error={error} onBack={() => setNotCommitted(null)}
          onConfirm={(message) => void start({ commit_and_push: true, message })} />
      </Modal>
    );
  }
  return (
    <Modal title="New sweep" testid="sweep-dialog" onClose={close}>
      <form class="form" onSubmit={(ev) => { ev.preventDefault(); void start(); }}>
        <BackendPicker value={backend} onChange={setBackend} only={['local', 'ray']} />
        <label class="field">
          <span>Command</span>
          <input class="mono" data-testid="sweep-command" value={command ?? ''} disabled={command === null}
            placeholder="python train.py" onInput={(ev) => setCommand(ev.currentTarget.value)} />
        </label>
        <label class="field">
          <span>Grid <small class="muted">(flags, each with comma-separated values: one job per combination)</small></span>
          <input class="mono" data-testid="sweep-grid" value={grid} onInput={(ev) => setGrid(ev.currentTarget.value)} />
        </label>
        {backend === 'ray' && <RayFields choice={ray} set={setRay} onSettings={() => (openDialog.value = 'ray-settings')} />}
        {error && <div class="form-error" data-testid="sweep-error">{error}</div>}
        <div class="modal-actions">
          <button type="button" class="btn" onClick={close}>Cancel</button>
          <button type="submit" class="btn btn-primary" data-testid="sweep-start" disabled={busy || command === null}>
            {busy ? 'Starting…' : '▶ Start sweep'}
          </button>
        </div>
      </form>
    </Modal>
  );
}
