// "Share…" (team mode): who else may use a device, with a remove button each, and a name box to
// add someone (an admin gets the team's user names as suggestions).
import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { listShares, shareDevice, unshareDevice, type Device } from '../../api/devices';
import { listUsers } from '../../api/team';
import { Modal } from '../../ui/dialogs';
import { account } from '../../kernel/account';
import { shareTarget } from './sharing';
import { refreshDevices } from '../../kernel/devices';

function close(): void {
  shareTarget.value = null;
}

function useUserNames(): string[] {
  const [names, setNames] = useState<string[]>([]);
  useEffect(() => {
    if (account.value?.role !== 'admin') return;
    // Suggestions only: without them the name box still works.
    listUsers().then((users) => setNames(users.map((u) => u.name)), () => setNames([]));
  }, []);
  return names;
}

export function ShareDialog({ device }: { device: Device }) {
  const [shares, setShares] = useState<string[] | null>(null);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const userNames = useUserNames().filter((n) => n !== account.value?.name && !shares?.includes(n));
  const run = async (action: () => Promise<unknown>): Promise<boolean> => {
    try {
      await action();
      setShares(await listShares(device.id));
      setError(null);
      return true;
    } catch (err) {
      setError(errorMessage(err));
      return false;
    }
  };
  useEffect(() => void run(async () => undefined), [device.id]);
  const submit = async (ev: Event) => {
    ev.preventDefault();
    if (await run(() => shareDevice(device.id, name.trim()))) setName('');
  };
  const remove = (user: string) => void run(() => unshareDevice(device.id, user)).then(() => refreshDevices());
  return (
    <Modal title={`Share ${device.name}`} testid="share-dialog" onClose={close}>
      <p class="modal-message">People it is shared with may run code on it from their projects.</p>
      <div class="share-list">
        {shares?.map((user) => (
          <div class="share-row" key={user} data-testid="share-row" data-user={user}>
            <span>{user}</span>
            <button class="btn btn-small btn-danger-ghost" data-testid="share-remove" onClick={() => remove(user)}>Remove</button>
          </div>
        ))}
        {shares && !shares.length && <div class="muted" data-testid="share-none">Not shared with anyone.</div>}
      </div>
      <form class="share-add" onSubmit={submit}>
        <input placeholder="User name" aria-label="User name" data-testid="share-name" list="device-share-users"
          value={name} onInput={(ev) => setName(ev.currentTarget.value)} />
        <datalist id="device-share-users">{userNames.map((n) => <option key={n} value={n} />)}</datalist>
        <button class="btn btn-primary" type="submit" data-testid="share-add" disabled={!name.trim()}>Share</button>
      </form>
      {error && <div class="form-error share-error" data-testid="share-error">{error}</div>}
      <div class="modal-actions">
        <button class="btn" data-testid="share-close" onClick={close}>Close</button>
      </div>
    </Modal>
  );
}
