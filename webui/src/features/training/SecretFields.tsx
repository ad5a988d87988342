// PAI-DLC credentials: the standard Alibaba Cloud chain, or an AccessKey stored (encrypted) on
// the server. What is stored is shown as "stored"; a secret is sent only when typed anew.
import type { CredentialSource, PaiDlcSettings } from '../../api/jobs';

export interface Secrets {
  source: CredentialSource;
  keyId: string;
  secret: string;
  token: string;
}

function Stored({ when }: { when: boolean }) {
  return when ? <span class="pai-stored" data-testid="pai-secret-stored">stored</span> : null;
}

export function SecretFields(props: { stored: PaiDlcSettings; value: Secrets; set: (s: Secrets) => void }) {
  const { stored, value, set } = props;
  const keyStored = stored.credentials === 'access_key' && stored.has_secret;
  return (
    <fieldset class="fieldset">
      <legend>Credentials</legend>
      <label class="checkbox">
        <input type="radio" name="pai-cred" data-testid="pai-cred-chain" checked={value.source === 'chain'}
          onChange={() => set({ ...value, source: 'chain' })} />
        Standard credential chain (environment, config files, RAM role)
      </label>
      <label class="checkbox">
        <input type="radio" name="pai-cred" data-testid="pai-cred-key" checked={value.source === 'access_key'}
          onChange={() => set({ ...value, source: 'access_key' })} />
        AccessKey, stored encrypted on the server
      </label>
      {value.source === 'access_key' && (
        <>
          <div class="field-row">
            <label class="field">
              <span>AccessKey ID</span>
              <input class="mono" data-testid="pai-key-id" value={value.keyId} autocomplete="off"
                placeholder={stored.access_key_id ?? ''} onInput={(ev) => set({ ...value, keyId: ev.currentTarget.value })} />
            </label>
            <label class="field">
              <span>AccessKey secret <Stored when={keyStored} /></span>
              <input type="password" autocomplete="new-password" data-testid="pai-secret" value={value.secret}
                placeholder={keyStored ? '•••••••• (type to replace)' : ''}
                onInput={(ev) => set({ ...value, secret: ev.currentTarget.value })} />
            </label>
          </div>
          <label class="field">
            <span>STS security token (temporary keys only) <Stored when={stored.has_security_token} /></span>
            <input type="password" autocomplete="new-password" data-testid="pai-token" value={value.token}
              onInput={(ev) => set({ ...value, token: ev.currentTarget.value })} />
          </label>
        </>
      )}
    </fieldset>
  );
}
