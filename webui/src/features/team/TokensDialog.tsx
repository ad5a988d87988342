// Personal API tokens for scripts and CI: list, create (the secret is shown once), revoke.
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { createToken, listTokens, revokeToken, type ApiToken, type CreatedToken } from '../../api/team';
import { Modal } from '../../ui/dialogs';

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'never');

async function copyText(input: HTMLInputElement): Promise<void> {
  // The clipboard API exists only on HTTPS or localhost; a LAN address over HTTP needs the old way.
  if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(input.value);
  input.select();
  document.execCommand('copy');
}

function NewSecret({ created }: { created: CreatedToken }) {
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState(false);
  const copy = () => copyText(input.current!).then(() => setCopied(true));
  return (
    <div class="token-secret" data-testid="token-secret">
      <p>Copy the token “{created.name}” now: it is not shown again.</p>
      <div class="token-secret-row">
        <input ref={input} class="mono" readOnly value={created.token} data-testid="token-value" onFocus={(ev) => ev.currentTarget.select()} />
        <button class="btn" data-testid="token-copy" onClick={() => void copy()}>{copied ? 'Copied' : 'Copy'}</button>
      </div>
    </div>
  );
}

function TokenTable({ tokens, revoke }: { tokens: ApiToken[]; revoke: (token: ApiToken) => void }) {
  if (!tokens.length) return <p class="muted" data-testid="tokens-empty">No tokens yet.</p>;
  return (
    <table class="table tokens-table">
      <thead><tr><th>Name</th><th>Created</th><th>Last used</th><th /></tr></thead>
      <tbody>
        {tokens.map((t) => (
          <tr key={t.id} data-testid="token-row" data-name={t.name}>
            <td>{t.name}</td>
            <td>{when(t.created_at)}</td>
            <td>{when(t.last_used_at)}</td>
            <td class="row-actions">
              <button class="btn btn-small btn-danger-ghost" data-testid="token-revoke" onClick={() => revoke(t)}>Revoke</button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function TokensDialog({ onClose }: { onClose: () => void }) {
  const [tokens, setTokens] = useState<ApiToken[] | null>(null);
  const [created, setCreated] = useState<CreatedToken | null>(null);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const run = async (action: () => Promise<void>) => {
    setError(null);
    try {
      await action();
      setTokens(await listTokens());
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  useEffect(() => void run(async () => undefined), []);
  const create = (ev: Event) => {
    ev.preventDefault();
    void run(async () => {
      setCreated(await createToken(name.trim()));
      setName('');
    });
  };
  const revoke = (token: ApiToken) => void run(async () => {
    await revokeToken(token.id);
    if (created?.id === token.id) setCreated(null);
  });
  return (
    <Modal title="Personal API tokens" testid="tokens-dialog" wide onClose={onClose}>
      <p class="muted">Scripts send a token as <span class="mono">Authorization: Bearer …</span> and act with your rights.</p>
      {tokens && <TokenTable tokens={tokens} revoke={revoke} />}
      {created && <NewSecret key={created.id} created={created} />}
      <form class="member-add" onSubmit={create}>
        <input placeholder="Token name, e.g. ci" aria-label="Token name" data-testid="token-name" maxLength={64}
          value={name} onInput={(ev) => setName(ev.currentTarget.value)} />
        <button class="btn btn-primary" type="submit" data-testid="token-create" disabled={!name.trim()}>Create token</button>
      </form>
      {error && <div class="form-error" role="alert" data-testid="tokens-error">{error}</div>}
      <div class="modal-actions">
        <button class="btn" onClick={onClose} data-testid="tokens-close">Close</button>
      </div>
    </Modal>
  );
}
