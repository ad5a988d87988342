// The Git flow's own dialogs, all driven by one signal: the files that block an operation, the
// credential prompt of a remote, the form that saves a stash, and the caller's identity.
import { signal } from '@preact/signals';
import { useState } from 'preact/hooks';
import type { Credentials } from '../../api/git';
import { Modal } from '../../ui/dialogs';
import { IdentityDialog } from './IdentityDialog';
import { RemotesDialog } from './RemotesDialog';

interface BlockedSpec {
  kind: 'blocked';
  title: string;
  detail: string;
  files: string[];
}

/** What the person typed, and whether the server should remember it for this remote. */
export interface CredentialAnswer extends Credentials {
  remember: boolean;
}

interface CredentialSpec {
  kind: 'credentials';
  remote: string;
  detail: string;
  resolve: (value: CredentialAnswer | null) => void;
}

interface StashSpec {
  kind: 'stash';
  resolve: (value: { message: string; includeUntracked: boolean } | null) => void;
}

interface RemotesSpec {
  kind: 'remotes';
}

interface IdentitySpec {
  kind: 'identity';
  reason: string | null;
  resolve: (saved: boolean | null) => void;
}

type GitDialog = BlockedSpec | CredentialSpec | StashSpec | RemotesSpec | IdentitySpec;

// Each opening is numbered, so a dialog asked again right after it closed starts fresh.
const open = signal<(GitDialog & { serial: number }) | null>(null);
let serial = 0;

function show(spec: GitDialog): void {
  const replaced = open.value;
  open.value = { ...spec, serial: ++serial };
  // A question pushed aside by another dialog counts as cancelled, so its operation ends.
  if (replaced && 'resolve' in replaced) (replaced.resolve as (answer: null) => void)(null);
}

const close = () => (open.value = null);

export function showBlocked(title: string, detail: string, files: string[]): void {
  show({ kind: 'blocked', title, detail, files });
}

export function askCredentials(remote: string, detail: string): Promise<CredentialAnswer | null> {
  return new Promise((resolve) => show({ kind: 'credentials', remote, detail, resolve }));
}

export function askStash(): Promise<{ message: string; includeUntracked: boolean } | null> {
  return new Promise((resolve) => show({ kind: 'stash', resolve }));
}

/** Shows (and lets the person edit) their identity; true once a new one is saved. */
export function askIdentity(reason: string | null = null): Promise<boolean> {
  return new Promise((resolve) => show({ kind: 'identity', reason, resolve: (saved) => resolve(saved === true) }));
}

export function showRemotes(): void {
  show({ kind: 'remotes' });
}

function BlockedDialog({ spec }: { spec: BlockedSpec }) {
  return (
    <Modal title={spec.title} testid="git-blocked-dialog" onClose={close}>
      <p class="modal-message">{spec.detail}</p>
      <ul class="git-file-list mono" data-testid="git-blocked-files">
        {spec.files.map((f) => <li key={f}>{f}</li>)}
      </ul>
      <div class="modal-actions">
        <button class="btn btn-primary" data-testid="git-blocked-ok" onClick={close}>OK</button>
      </div>
    </Modal>
  );
}

function CredentialDialog({ spec }: { spec: CredentialSpec }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [remember, setRemember] = useState(false);
  const finish = (value: CredentialAnswer | null) => {
    close();
    spec.resolve(value);
  };
  return (
    <Modal title={`Sign in to ${spec.remote}`} testid="git-credentials" onClose={() => finish(null)}>
      <p class="modal-message">{spec.detail}</p>
      <form class="form" onSubmit={(ev) => { ev.preventDefault(); finish({ username, password, remember }); }}>
        <label class="field">
          <span>Username</span>
          <input data-testid="git-username" autoComplete="username" value={username} autoFocus
            onInput={(ev) => setUsername(ev.currentTarget.value)} />
        </label>
        <label class="field">
          <span>Password or access token</span>
          <input data-testid="git-password" type="password" autoComplete="current-password" value={password}
            onInput={(ev) => setPassword(ev.currentTarget.value)} />
        </label>
        <label class="checkbox">
          <input type="checkbox" data-testid="git-remember" checked={remember}
            onChange={(ev) => setRemember(ev.currentTarget.checked)} />
          Remember for this remote
        </label>
        <p class="muted git-note">
          {remember
            ? 'Kept on the server, encrypted, for you and this project only; forget them in Remotes.'
            : "Sent with this request only; never written to the repository's config."}
        </p>
        <div class="modal-actions">
          <button type="button" class="btn" data-testid="git-credentials-cancel" onClick={() => finish(null)}>Cancel</button>
          <button type="submit" class="btn btn-primary" data-testid="git-credentials-ok" disabled={!username && !password}>Sign in</button>
        </div>
      </form>
    </Modal>
  );
}

function StashDialog({ spec }: { spec: StashSpec }) {
  const [message, setMessage] = useState('');
  const [includeUntracked, setIncludeUntracked] = useState(false);
  const finish = (ok: boolean) => {
    close();
    spec.resolve(ok ? { message: message.trim(), includeUntracked } : null);
  };
  return (
    <Modal title="Stash changes" testid="git-stash-dialog" onClose={() => finish(false)}>
      <form class="form" onSubmit={(ev) => { ev.preventDefault(); finish(true); }}>
        <label class="field">
          <span>Message (optional)</span>
          <input data-testid="git-stash-message" value={message} autoFocus onInput={(ev) => setMessage(ev.currentTarget.value)} />
        </label>
        <label class="checkbox">
          <input type="checkbox" data-testid="git-stash-untracked" checked={includeUntracked}
            onChange={(ev) => setIncludeUntracked(ev.currentTarget.checked)} />
          Include untracked files
        </label>
        <div class="modal-actions">
          <button type="button" class="btn" onClick={() => finish(false)}>Cancel</button>
          <button type="submit" class="btn btn-primary" data-testid="git-stash-ok">Stash</button>
        </div>
      </form>
    </Modal>
  );
}

export function GitDialogHost() {
  const spec = open.value;
  if (!spec) return null;
  if (spec.kind === 'blocked') return <BlockedDialog key={spec.serial} spec={spec} />;
  if (spec.kind === 'credentials') return <CredentialDialog key={spec.serial} spec={spec} />;
  if (spec.kind === 'stash') return <StashDialog key={spec.serial} spec={spec} />;
  if (spec.kind === 'identity') {
    return <IdentityDialog key={spec.serial} reason={spec.reason} onDone={(saved) => { close(); spec.resolve(saved); }} />;
  }
  return <RemotesDialog key={spec.serial} onClose={close} />;
}
