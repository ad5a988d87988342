// "Pair a device": name it, then show the one line to run on the device for the server address
// picked, as text (with a copy button) and as a QR code, with its expiry. The dialog watches the
// device list and says so when the new device has connected.
import { signal } from '@preact/signals';
import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { createPairing, type Pairing } from '../../api/devices';
import { Modal } from '../../ui/dialogs';
import { devices, watchDevices } from '../../kernel/devices';

export const pairOpen = signal(false);

function close(): void {
  pairOpen.value = false;
}

function AddressPicker({ pairing, choice, onPick }: { pairing: Pairing; choice: number; onPick: (i: number) => void }) {
  if (pairing.options.length < 2) return <code class="pair-url" data-testid="pair-url">{pairing.options[0]?.url}</code>;
  return (
    <select class="pair-url" data-testid="pair-address" value={String(choice)} title="The address the device reaches the workbench under"
      onChange={(ev) => onPick(Number(ev.currentTarget.value))}>
      {pairing.options.map((o, i) => <option key={o.url} value={String(i)}>{o.url}</option>)}
    </select>
  );
}

function CommandBox({ pairing, known }: { pairing: Pairing; known: Set<string> }) {
  const [copied, setCopied] = useState(false);
  const [choice, setChoice] = useState(0);
  const option = pairing.options[choice] ?? { url: '', command: pairing.command, qr: '' };
  const copy = () => {
    void navigator.clipboard?.writeText(option.command).then(() => setCopied(true), () => setCopied(false));
  };
  const expires = new Date(pairing.expires_at.endsWith('Z') ? pairing.expires_at : `${pairing.expires_at}Z`);
  const joined = devices.value.find((d) => d.online && !known.has(d.id));
  return (
    <>
      <div class="pair-address-line">
        <span>Server address the device reaches:</span>
        <AddressPicker pairing={pairing} choice={choice} onPick={(i) => { setChoice(i); setCopied(false); }} />
      </div>
      <div class="pair-body">
        {option.qr && <img class="pair-qr" data-testid="pair-qr" src={option.qr} alt="QR code of the pairing command" />}
        <div class="pair-text">
          <p class="modal-message">Run this on the device (Termux, a board or a PC with Python 3.11+); it needs
            nothing but <code>python3</code>. Scan the code to get it onto a phone.</p>
          <div class="pair-command">
            <code data-testid="pair-command">{option.command}</code>
            <button class="btn btn-small" data-testid="pair-copy" onClick={copy}>{copied ? 'Copied' : 'Copy'}</button>
          </div>
        </div>
      </div>
      <p class="muted pair-expiry" data-testid="pair-expiry">
        The code works once and expires at {expires.toLocaleTimeString()}. The agent checks its download
        against sha256 {pairing.agent_sha256.slice(0, 12)}… and installs what it lacks into its own folder.
      </p>
      <p class={joined ? 'pair-status ok' : 'pair-status'} data-testid="pair-status">
        {joined ? `✓ ${joined.name} is connected.` : 'Waiting for the device to connect…'}
      </p>
    </>
  );
}

export function PairDialog() {
  const [name, setName] = useState('');
  const [pairing, setPairing] = useState<Pairing | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [known] = useState(() => new Set(devices.value.map((d) => d.id)));
  useEffect(() => watchDevices(), []);
  const submit = (ev: Event) => {
    ev.preventDefault();
    createPairing(name.trim() || 'device').then(setPairing, (err) => setError(errorMessage(err)));
  };
  return (
    <Modal title="Pair a device" testid="pair-dialog" wide={Boolean(pairing)} onClose={close}>
      {pairing ? (
        <CommandBox pairing={pairing} known={known} />
      ) : (
        <form onSubmit={submit}>
          <label class="field">
            <span>Device name</span>
            <input data-testid="pair-name" value={name} placeholder="pixel-7" autoFocus
              onInput={(ev) => setName(ev.currentTarget.value)} />
          </label>
          {error && <div class="form-error">{error}</div>}
          <div class="modal-actions">
            <button type="button" class="btn" onClick={close}>Cancel</button>
            <button type="submit" class="btn btn-primary" data-testid="pair-create">Get command</button>
          </div>
        </form>
      )}
      {pairing && (
        <div class="modal-actions">
          <button class="btn btn-primary" data-testid="pair-done" onClick={close}>Done</button>
        </div>
      )}
    </Modal>
  );
}
