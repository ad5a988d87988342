// The remotes of the repository: listed with their URLs (credentials are redacted by the
// server) and the username the server remembers for each, if any; added by name and URL,
// removed, and their saved credentials forgotten.
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { addRemote, listRemotes, listSavedCredentials, removeRemote, type Remote } from '../../api/git';
import { Modal } from '../../ui/dialogs';
import { offerDefault } from '../../ui/lateDefault';
import { pid } from '../../kernel/session';
import { forgetCredentials } from './credentials';

export function RemotesDialog({ onClose }: { onClose: () => void }) {
  const [list, setList] = useState<Remote[] | null>(null);
  const [saved, setSaved] = useState<ReadonlyMap<string, string>>(new Map());
  const [name, setName] = useState('');
  const nameField = useRef<HTMLInputElement>(null);
  const [url, setUrl] = useState('');
  const [error, setError] = useState<string | null>(null);

  const reload = async () => {
    try {
      const [next, creds] = await Promise.all([listRemotes(pid()), listSavedCredentials(pid())]);
      setList(next);
      setSaved(new Map(creds.map((c) => [c.remote, c.username])));
      if (next.length === 0) offerDefault(nameField, setName, 'origin');
    } catch (err) {
      setError(errorMessage(err));
    }
  };
  useEffect(() => void reload(), []);

  const attempt = async (work: () => Promise<unknown>) => {
    setError(null);
    try {
      await work();
      await reload();
      return true;
    } catch (err) {
      setError(errorMessage(err));
      return false;
    }
  };
  const add = async (ev: Event) => {
    ev.preventDefault();
    if (await attempt(() => addRemote(pid(), name.trim(), url.trim()))) setUrl('');
  };

  return (
    <Modal title="Remotes" testid="git-remotes-dialog" onClose={onClose}>
      {list === null ? <p class="muted">Loading…</p> : list.length === 0 ? (
        <p class="muted" data-testid="git-no-remotes">No remotes yet.</p>
      ) : (
        <ul class="git-remote-list">
          {list.map((r) => (
            <li key={r.name} data-testid="git-remote" data-name={r.name}>
              <strong>{r.name}</strong>
              <span class="mono muted git-remote-url" title={r.url}>{r.url}</span>
              {saved.has(r.name) && (
                <button class="btn btn-small" data-testid="git-remote-forget"
                  title={`Saved as ${saved.get(r.name) || '(no username)'}: forget them`}
                  onClick={() => void attempt(() => forgetCredentials(r.name))}>
                  Forget saved credentials
                </button>
              )}
              <button class="icon-btn" title={`Remove ${r.name}`} aria-label={`Remove ${r.name}`} data-testid="git-remote-remove"
                onClick={() => void attempt(() => removeRemote(pid(), r.name))}>×</button>
            </li>
          ))}
        </ul>
      )}
      <form class="git-remote-form" onSubmit={add}>
        <input ref={nameField} data-testid="git-remote-name" value={name} placeholder="name" aria-label="Remote name"
          onInput={(ev) => setName(ev.currentTarget.value)} />
        <input data-testid="git-remote-url" value={url} placeholder="https://host/team/repo.git" aria-label="Remote URL"
          onInput={(ev) => setUrl(ev.currentTarget.value)} />
        <button class="btn" type="submit" data-testid="git-remote-add" disabled={!name.trim() || !url.trim()}>Add</button>
      </form>
      {error && <div class="form-error" data-testid="git-remotes-error">{error}</div>}
      <div class="modal-actions">
        <button class="btn btn-primary" data-testid="git-remotes-close" onClick={onClose}>Close</button>
      </div>
    </Modal>
  );
}
