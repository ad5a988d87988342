// The PAI-DLC settings: where jobs run, what they run on, where outputs go, and the credentials.
// Secrets are write-only: the form only learns whether one is stored, and sends one only when
// the user types it.
import { useEffect, useState } from 'preact/hooks';
import { getPaiSettings, putPaiSettings, type PaiDlcOptions, type PaiDlcSettings, type PaiDlcSettingsUpdate } from '../../api/jobs';
import { Modal } from '../../ui/dialogs';
import { notify } from '../../ui/toast';
import { describeError } from './actions';
import { openDialog } from './dialogState';
import { EcsSpecPicker } from './EcsSpecPicker';
import { SecretFields, type Secrets } from './SecretFields';

type TextOption = 'region' | 'workspace_id' | 'resource_id' | 'image' | 'oss_bucket' | 'oss_prefix' | 'job_type' | 'endpoint' | 'workspace_endpoint' | 'oss_endpoint';

interface FieldProps {
  label: string;
  name: TextOption;
  form: PaiDlcOptions;
  set: (form: PaiDlcOptions) => void;
  placeholder?: string;
}

function TextField(props: FieldProps) {
  return (
    <label class="field">
      <span>{props.label}</span>
      <input data-testid={`pai-${props.name}`} value={props.form[props.name] ?? ''} placeholder={props.placeholder}
        onInput={(ev) => props.set({ ...props.form, [props.name]: ev.currentTarget.value })} />
    </label>
  );
}

/** Endpoint overrides, for a private endpoint or a local emulator. */
function Endpoints({ form, set }: { form: PaiDlcOptions; set: (f: PaiDlcOptions) => void }) {
  return (
    <details class="pai-advanced">
      <summary>Endpoints</summary>
      <div class="field-row">
        <TextField label="PAI-DLC (host:port)" name="endpoint" form={form} set={set} placeholder={`pai-dlc.${form.region}.aliyuncs.com`} />
        <TextField label="AIWorkspace (host:port)" name="workspace_endpoint" form={form} set={set} placeholder={`aiworkspace.${form.region}.aliyuncs.com`} />
      </div>
      <div class="field-row">
        <TextField label="OSS endpoint" name="oss_endpoint" form={form} set={set} placeholder={`https://oss-${form.region}.aliyuncs.com`} />
        <label class="field field-narrow">
          <span>Protocol</span>
          <select data-testid="pai-protocol" value={form.protocol} onChange={(ev) => set({ ...form, protocol: ev.currentTarget.value as PaiDlcOptions['protocol'] })}>
            <option value="https">https</option>
            <option value="http">http</option>
          </select>
        </label>
      </div>
      <label class="checkbox">
        <input type="checkbox" data-testid="pai-oss_path_style" checked={form.oss_path_style} onChange={(ev) => set({ ...form, oss_path_style: ev.currentTarget.checked })} />
        Path-style OSS addressing
      </label>
    </details>
  );
}

function optionsOf(settings: PaiDlcSettings): PaiDlcOptions {
  const { configured: _c, credentials: _s, access_key_id: _k, has_secret: _h, has_security_token: _t, ...options } = settings;
  return options;
}

const blank = (value: string | null): string | null => (value && value.trim() ? value.trim() : null);

function toUpdate(form: PaiDlcOptions, secrets: Secrets): PaiDlcSettingsUpdate {
  return {
    ...form,
    endpoint: blank(form.endpoint),
    workspace_endpoint: blank(form.workspace_endpoint),
    oss_endpoint: blank(form.oss_endpoint),
    credentials: secrets.source,
    access_key_id: blank(secrets.keyId),
    access_key_secret: blank(secrets.secret),
    security_token: blank(secrets.token),
  };
}

function SettingsFields({ form, set, configured }: { form: PaiDlcOptions; set: (f: PaiDlcOptions) => void; configured: boolean }) {
  return (
    <>
      <div class="field-row">
        <TextField label="Region" name="region" form={form} set={set} placeholder="cn-hangzhou" />
        <TextField label="Workspace ID" name="workspace_id" form={form} set={set} />
      </div>
      <TextField label="Resource group (empty: public resources)" name="resource_id" form={form} set={set} />
      <TextField label="Default image" name="image" form={form} set={set} />
      <div class="field-row">
        <EcsSpecPicker value={form.ecs_spec} configured={configured} onChange={(ecs_spec) => set({ ...form, ecs_spec })} />
        <label class="field field-narrow">
          <span>Pods</span>
          <input type="number" min={1} max={64} data-testid="pai-pod_count" value={form.pod_count}
            onInput={(ev) => set({ ...form, pod_count: Number(ev.currentTarget.value) || 1 })} />
        </label>
      </div>
      <div class="field-row">
        <TextField label="OSS bucket" name="oss_bucket" form={form} set={set} />
        <TextField label="OSS prefix" name="oss_prefix" form={form} set={set} />
      </div>
      <Endpoints form={form} set={set} />
    </>
  );
}

export function PaiSettingsDialog() {
  const [stored, setStored] = useState<PaiDlcSettings | null>(null);
  const [form, setForm] = useState<PaiDlcOptions | null>(null);
  const [secrets, setSecrets] = useState<Secrets>({ source: 'chain', keyId: '', secret: '', token: '' });
  const [error, setError] = useState<string | null>(null);
  const close = () => (openDialog.value = null);
  useEffect(() => {
    getPaiSettings().then((settings) => {
      setStored(settings);
      setForm(optionsOf(settings));
      setSecrets((s) => ({ ...s, source: settings.credentials }));
    }, (err: unknown) => setError(describeError(err)));
  }, []);
  const save = async (ev: Event) => {
    ev.preventDefault();
    try {
      await putPaiSettings(toUpdate(form!, secrets));
      notify('PAI-DLC settings saved.', 'info');
      close();
    } catch (err) {
      setError(describeError(err));
    }
  };
  return (
    <Modal title="PAI-DLC settings" testid="pai-settings-dialog" onClose={close}>
      <form class="form" onSubmit={(ev) => void save(ev)}>
        {!form && !error && <div class="muted">Loading…</div>}
        {form && stored && (
          <div class="pai-fields">
            <SettingsFields form={form} set={setForm} configured={stored.configured} />
            <SecretFields stored={stored} value={secrets} set={setSecrets} />
          </div>
        )}
        {error && <div class="form-error" data-testid="pai-settings-error">{error}</div>}
        <div class="modal-actions">
          <button type="button" class="btn" onClick={close}>Cancel</button>
          <button type="submit" class="btn btn-primary" data-testid="pai-save" disabled={!form}>Save</button>
        </div>
      </form>
    </Modal>
  );
}
