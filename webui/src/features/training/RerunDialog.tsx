// "Run again…" on a job: the same backend, its command and environment to edit, the rest of its
// config as it was (`POST /api/jobs/{jid}/rerun`); the new job is selected when it starts.
import { useState } from 'preact/hooks';
import { rerunJob } from '../../api/jobs';
import { useAction } from '../../kernel/resource';
import { Modal } from '../../ui/dialogs';
import { describeError } from './actions';
import { openDialog, rerunOf } from './dialogState';
import { backendLabel } from './format';
import { parseEnv } from './NewJobDialog';
import { jobs, selectedId, upsertJob } from './store';

export function RerunDialog() {
  const job = jobs.value.find((j) => j.id === rerunOf.value);
  const env = (job?.config.env ?? {}) as Record<string, string>;
  const [command, setCommand] = useState(job?.command ?? '');
  const [envText, setEnvText] = useState(Object.entries(env).map(([k, v]) => `${k}=${v}`).join('\n'));
  const close = () => (openDialog.value = null);
  const { run: start, running: busy, error } = useAction(async () => {
    if (!job) return;
    const { env: _old, ...rest } = job.config;
    const edited = parseEnv(envText);
    const started = await rerunJob(job.id, { command: command.trim(), config: { ...rest, ...(Object.keys(edited).length ? { env: edited } : {}) } });
    upsertJob(started);
    selectedId.value = started.id;
    close();
  }, describeError);
  if (!job) return null;
  return (
    <Modal title={`Run again on ${backendLabel(job.backend)}`} testid="rerun-dialog" onClose={close}>
      <form class="form" onSubmit={(ev) => { ev.preventDefault(); void start(); }}>
        <label class="field">
          <span>Command</span>
          <input class="mono" data-testid="rerun-command" value={command} onInput={(ev) => setCommand(ev.currentTarget.value)} />
        </label>
        <label class="field">
          <span>Environment <small class="muted">(KEY=value, one per line)</small></span>
          <textarea class="mono job-env" rows={3} data-testid="rerun-env" value={envText} onInput={(ev) => setEnvText(ev.currentTarget.value)} />
        </label>
        <p class="field-hint">It runs the project as it is now; the rest of the job's settings stay as they were.</p>
        {error && <div class="form-error" data-testid="rerun-error">{error}</div>}
        <div class="modal-actions">
          <button type="button" class="btn" onClick={close}>Cancel</button>
          <button type="submit" class="btn btn-primary" data-testid="rerun-start" disabled={busy || !command.trim()}>Run</button>
        </div>
      </form>
    </Modal>
  );
}
