// The team dialogs of a page (members, API tokens): one open at a time, rendered by <TeamDialogs/>.
import { signal } from '@preact/signals';
import { MembersDialog } from './MembersDialog';
import { TokensDialog } from './TokensDialog';

type TeamDialog = { kind: 'members'; pid: string } | { kind: 'tokens' };

const open = signal<TeamDialog | null>(null);

export function openMembers(pid: string): void {
  open.value = { kind: 'members', pid };
}

export function openTokens(): void {
  open.value = { kind: 'tokens' };
}

const close = () => {
  open.value = null;
};

export function TeamDialogs() {
  const dialog = open.value;
  if (!dialog) return null;
  if (dialog.kind === 'members') return <MembersDialog pid={dialog.pid} onClose={close} />;
  return <TokensDialog onClose={close} />;
}
