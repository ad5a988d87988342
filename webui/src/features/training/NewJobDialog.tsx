// New job: local, PAI-DLC or Ray, the command (the template's default to start with), environment
// variables, for PAI-DLC the image, machine type and pod count, for Ray the resources.
import { useEffect, useState } from 'preact/hooks';
import { getPaiSettings, type Backend, type JobCreate, type NotPushed } from '../../api/jobs';
import { listTemplates } from '../../api/projects';
import { Modal } from '../../ui/dialogs';
import { EmptyState } from '../../ui/EmptyState';
import { session } from '../../kernel/session';
import { startJob } from './actions';
import { openDialog } from './dialogState';
import { EcsSpecPicker } from './EcsSpecPicker';
import { PushStep } from './PushStep';
import { BackendPicker, CommitStep, NO_RAY_CHOICE, rayConfig, RayFields, type RayChoice } from './RayFields';

interface CloudChoice {
  image: string;
  ecs_spec: string;
  pod_count: number;
}

/** `KEY=value` lines; blank lines and lines without `=` are ignored. */
export function parseEnv(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const at = line.indexOf('=');
    if (at > 0) env[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return env;
}

function buildBody(backend: Backend, command: string, envText: string, cloud: CloudChoice, ray: RayChoice): JobCreate {
  const env = parseEnv(envText);
  const config: Record<string, unknown> = Object.keys(env).length ? { env } : {};
  if (backend === 'pai-dlc') Object.assign(config, cloud);
  if (backend === 'ray') Object.assign(config, rayConfig(ray));
  return { backend, command: command.trim() || undefined, config };
}

export function useDefaultCommand(setCommand: (command: string) => void): void {
  useEffect(() => {
    const template = session().project.template;
    if (!template) return;
    listTemplates().then(
      (all) => setCommand(all.find((t) => t.name === template)?.default_command ?? ''),
      () => setCommand(''),
    );
  }, []);
}

const SETTING_NAMES: Record<string, string> = { workspace_id: 'the workspace ID', oss_bucket: 'the OSS bucket' };

/** PAI-DLC before its settings name a workspace and a bucket: say so, and open the settings. */
function CloudNotReady({ missing }: { missing: string[] }) {
  return (
    <EmptyState testid="pai-not-configured" title="PAI-DLC is not configured"
      action={{ label: 'Configure PAI-DLC…', testid: 'pai-configure', run: () => (openDialog.value = 'pai-settings') }}>
      A cloud job needs {missing.map((name) => SETTING_NAMES[name] ?? name).join(' and ')} in the PAI-DLC settings.
    </EmptyState>
  );
}

function CloudFields({ cloud, setCloud }: { cloud: CloudChoice; setCloud: (c: CloudChoice) => void }) {
  const [missing, setMissing] = useState<string[] | null>(null);
  useEffect(() => {
    getPaiSettings().then((s) => {
      setCloud({ image: s.image, ecs_spec: s.ecs_spec, pod_count: s.pod_count });
      setMissing(s.missing);
    }, () => setMissing([]));
  }, []);
  if (missing === null) return <p class="field-hint">Reading the PAI-DLC settings…</p>;
  if (missing.length) return <CloudNotReady missing={missing} />;
  return (
    <>
      <label class="field">
        <span>Image</span>
        <input data-testid="job-image" value={cloud.image} onInput={(ev) => setCloud({ ...cloud, image: ev.currentTarget.value })} />
      </label>
      <div class="field-row">
        <EcsSpecPicker value={cloud.ecs_spec} onChange={(ecs_spec) => setCloud({ ...cloud, ecs_spec })} />
        <label class="field field-narrow">
          <span>Pods</span>
          <input type="number" min={1} max={64} data-testid="job-pods" value={cloud.pod_count}
            onInput={(ev) => setCloud({ ...cloud, pod_count: Number(ev.currentTarget.value) || 1 })} />
        </label>
      </div>
      <p class="field-hint">The job runs the project's pushed commit; its outputs go to the OSS prefix in the PAI-DLC settings.</p>
    </>
  );
}

export function NewJobDialog() {
  const [backend, setBackend] = useState<Backend>('local');
  const [command, setCommand] = useState<string | null>(session().project.template ? null : '');
  const [envText, setEnvText] = useState('');
  const [cloud, setCloud] = useState<CloudChoice>({ image: '', ecs_spec: '', pod_count: 1 });
  const [error, setError] = useState<string | null>(null);
  const [unconfigured, setUnconfigured] = useState(false);
  const [notPushed, setNotPushed] = useState<NotPushed | null>(null);
  const [ray, setRay] = useState<RayChoice>(NO_RAY_CHOICE);
  const [notCommitted, setNotCommitted] = useState<string[] | null>(null);
  const [busy, setBusy] = useState(false);
  useDefaultCommand(setCommand);
  const close = () => (openDialog.value = null);
  const start = async (extra: Partial<JobCreate> = {}) => {
    setBusy(true);
    const outcome = await startJob({ ...buildBody(backend, command ?? '', envText, cloud, ray), ...extra });
    setBusy(false);
    if (outcome.ok) return close();
    // A failed commit or push keeps the user on the push step, with the message they typed.
    if (outcome.notPushed) setNotPushed(outcome.notPushed);
    if (outcome.notCommitted) setNotCommitted(outcome.notCommitted);
    setError(outcome.notPushed || outcome.notCommitted ? null : outcome.error);
    setUnconfigured(outcome.code === 'pai_dlc_not_configured' || outcome.code === 'ray_not_configured');
  };
  if (notCommitted) {
    return (
      <Modal title="Commit first" testid="new-job-dialog" onClose={close}>
        <CommitStep files={notCommitted} busy={busy} error={error} onBack={() => { setNotCommitted(null); setError(null); }}
          onConfirm={(message) => void start({ commit_and_push: true, message })} />
      </Modal>
    );
  }
  if (notPushed) {
    return (
      <Modal title="Commit and push first" testid="new-job-dialog" onClose={close}>
        <PushStep info={notPushed} busy={busy} error={error} onBack={() => { setNotPushed(null); setError(null); }}
          onConfirm={(message) => void start({ commit_and_push: true, message })} />
      </Modal>
    );
  }
  return (
    <Modal title="New training job" testid="new-job-dialog" onClose={close}>
      <form class="form" onSubmit={(ev) => { ev.preventDefault(); void start(); }}>
        <BackendPicker value={backend} onChange={(b) => setBackend(b as Backend)} />
        <label class="field">
          <span>Command</span>
          <input class="mono" data-testid="job-command" value={command ?? ''} disabled={command === null}
            placeholder="python train.py" onInput={(ev) => setCommand(ev.currentTarget.value)} />
        </label>
        <label class="field">
          <span>Environment <small class="muted">(KEY=value, one per line)</small></span>
          <textarea class="mono job-env" rows={2} data-testid="job-env" value={envText} onInput={(ev) => setEnvText(ev.currentTarget.value)} />
        </label>
        {backend === 'pai-dlc' && <CloudFields cloud={cloud} setCloud={setCloud} />}
        {backend === 'ray' && <RayFields choice={ray} set={setRay} onSettings={() => (openDialog.value = 'ray-settings')} />}
        {error && (
          <div class="form-error" data-testid="new-job-error">
            {error}
            {unconfigured && (
              <> <button type="button" class="btn-link" data-testid="new-job-pai-settings" onClick={() => (openDialog.value = backend === 'ray' ? 'ray-settings' : 'pai-settings')}>
                Open {backend === 'ray' ? 'Ray' : 'PAI-DLC'} settings
              </button></>
            )}
          </div>
        )}
        <div class="modal-actions">
          <button type="button" class="btn" onClick={close}>Cancel</button>
          <button type="submit" class="btn btn-primary" data-testid="job-start" disabled={busy || command === null}>
            {busy ? 'Starting…' : '▶ Start'}
          </button>
        </div>
      </form>
    </Modal>
  );
}
