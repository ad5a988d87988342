// The Ray cluster settings of this project (or the team default it falls back to): the
// dashboard address, an optional auth token, and where jobs leave their artifacts. Secrets are
// write-only: the form learns only whether one is stored and sends one only when typed.
import { useEffect, useState } from 'preact/hooks';
import { getRaySettings, putRaySettings, type RayOptions, type RaySettings } from '../../api/ray';
import { Modal } from '../../ui/dialogs';
import { notify } from '../../ui/toast';
import { pid } from '../../kernel/session';
import { describeError } from './actions';
import { openDialog } from './dialogState';

type TextOption = 'address' | 'auth_header' | 'shared_path' | 's3_endpoint' | 's3_region' | 's3_bucket' | 's3_prefix' | 's3_access_key_id';

function Text(props: { label: string; name: TextOption; form: RayOptions; set: (f: RayOptions) => void; placeholder?: string }) {
  return (
    <label class="field">
      <span>{props.label}</span>
      <input data-testid={`ray-${props.name}`} value={props.form[props.name]} placeholder={props.placeholder}
        onInput={(ev) => props.set({ ...props.form, [props.name]: ev.currentTarget.value })} />
    </label>
  );
}

function Secret(props: { label: string; testid: string; stored: boolean; value: string; set: (v: string) => void }) {
  return (
    <label class="field">
      <span>{props.label} {props.stored && <span class="pai-stored" data-testid={`${props.testid}-stored`}>stored</span>}</span>
      <input type="password" autocomplete="new-password" data-testid={props.testid} value={props.value}
        placeholder={props.stored ? '•••••••• (type to replace)' : ''} onInput={(ev) => props.set(ev.currentTarget.value)} />
    </label>
  );
}

function optionsOf(settings: RaySettings): RayOptions {
  const { configured: _c, scope: _s, has_auth_token: _t, has_s3_secret: _h, ...options } = settings;
  return options;
}

function StorageFields({ form, set, stored, secret, setSecret }: { form: RayOptions; set: (f: RayOptions) => void; stored: RaySettings; secret: string; setSecret: (v: string) => void }) {
  return (
    <fieldset class="fieldset">
      <legend>Artifact storage</legend>
      <div class="segmented" role="tablist">
        {(['shared_path', 's3'] as const).map((kind) => (
          <button key={kind} type="button" role="tab" aria-selected={form.storage === kind} class={form.storage === kind ? 'active' : ''}
            data-testid={`ray-storage-${kind}`} onClick={() => set({ ...form, storage: kind })}>
            {kind === 's3' ? 'S3-compatible bucket' : 'Shared folder'}
          </button>
        ))}
      </div>
      {form.storage === 'shared_path' && <Text label="Folder both the cluster and this server see" name="shared_path" form={form} set={set} placeholder="/mnt/shared/mnnwb" />}
      {form.storage === 's3' && (
        <>
          <div class="field-row">
            <Text label="Endpoint (empty: AWS)" name="s3_endpoint" form={form} set={set} placeholder="https://s3.example.com" />
            <Text label="Region" name="s3_region" form={form} set={set} />
          </div>
          <div class="field-row">
            <Text label="Bucket" name="s3_bucket" form={form} set={set} />
            <Text label="Prefix" name="s3_prefix" form={form} set={set} />
          </div>
          <div class="field-row">
            <Text label="Access key id" name="s3_access_key_id" form={form} set={set} />
            <Secret label="Secret key" testid="ray-s3-secret" stored={stored.has_s3_secret} value={secret} set={setSecret} />
          </div>
        </>
      )}
    </fieldset>
  );
}

export function RaySettingsDialog() {
  const [stored, setStored] = useState<RaySettings | null>(null);
  const [form, setForm] = useState<RayOptions | null>(null);
  const [token, setToken] = useState('');
  const [s3Secret, setS3Secret] = useState('');
  const [error, setError] = useState<string | null>(null);
  const close = () => (openDialog.value = null);
  useEffect(() => {
    getRaySettings(pid()).then((settings) => {
      setStored(settings);
      setForm(optionsOf(settings));
    }, (err: unknown) => setError(describeError(err)));
  }, []);
  const save = async (ev: Event) => {
    ev.preventDefault();
    try {
      await putRaySettings(pid(), { ...form!, auth_token: token || null, s3_secret_key: s3Secret || null });
      notify('Ray settings saved.', 'info');
      close();
    } catch (err) {
      setError(describeError(err));
    }
  };
  return (
    <Modal title="Ray cluster settings" testid="ray-settings-dialog" onClose={close}>
      <form class="form" onSubmit={(ev) => void save(ev)}>
        {!form && !error && <div class="muted">Loading…</div>}
        {form && stored && (
          <div class="pai-fields">
            {stored.scope === 'default' && stored.configured && <p class="field-hint">This project uses the team's default cluster; saving gives it its own settings.</p>}
            <Text label="Dashboard address" name="address" form={form} set={setForm} placeholder="http://127.0.0.1:8265" />
            <p class="field-hint">Ray's dashboard has no authentication of its own: reach it over a private network or an authenticating proxy, never the open internet.</p>
            <div class="field-row">
              <Text label="Auth header" name="auth_header" form={form} set={setForm} />
              <Secret label="Auth token (header value)" testid="ray-token" stored={stored.has_auth_token} value={token} set={setToken} />
            </div>
            <StorageFields form={form} set={setForm} stored={stored} secret={s3Secret} setSecret={setS3Secret} />
          </div>
        )}
        {error && <div class="form-error" data-testid="ray-settings-error">{error}</div>}
        <div class="modal-actions">
          <button type="button" class="btn" onClick={close}>Cancel</button>
          <button type="submit" class="btn btn-primary" data-testid="ray-save" disabled={!form}>Save</button>
        </div>
      </form>
    </Modal>
  );
}
