// The name and email the caller commits with when a repository names none: asked for on the
// first commit that needs it, and shown and edited from the Source Control panel's menu.
import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { getIdentity, setIdentity } from '../../api/git';
import { Modal } from '../../ui/dialogs';

export function IdentityDialog({ reason, onDone }: { reason: string | null; onDone: (saved: boolean) => void }) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  useEffect(() => {
    // What the person has typed meanwhile is kept.
    getIdentity().then((id) => {
      setName((typed) => typed || (id.name ?? ''));
      setEmail((typed) => typed || (id.email ?? ''));
    }, (err) => setError(errorMessage(err)));
  }, []);
  const save = async () => {
    setSaving(true);
    try {
      await setIdentity(name.trim(), email.trim());
      onDone(true);
    } catch (err) {
      setError(errorMessage(err));
      setSaving(false);
    }
  };
  return (
    <Modal title="Your Git identity" testid="git-identity-dialog" onClose={() => onDone(false)}>
      <p class="modal-message">
        {reason ?? 'Commits, stashes and merges are signed with this name and email when the repository sets none.'}
      </p>
      <form class="form" onSubmit={(ev) => { ev.preventDefault(); void save(); }}>
        <label class="field">
          <span>Name</span>
          <input data-testid="git-identity-name" autoComplete="name" value={name} autoFocus
            onInput={(ev) => setName(ev.currentTarget.value)} />
        </label>
        <label class="field">
          <span>Email</span>
          <input data-testid="git-identity-email" type="email" autoComplete="email" value={email}
            onInput={(ev) => setEmail(ev.currentTarget.value)} />
        </label>
        {error && <div class="form-error" data-testid="git-identity-error">{error}</div>}
        <div class="modal-actions">
          <button type="button" class="btn" onClick={() => onDone(false)}>Cancel</button>
          <button type="submit" class="btn btn-primary" data-testid="git-identity-save"
            disabled={saving || !name.trim() || !email.trim()}>Save</button>
        </div>
      </form>
    </Modal>
  );
}
