// The signed-in person (name · role) with a menu: API tokens, sign out here or everywhere.
import { errorMessage } from '../../api/client';
import { openContextMenu } from '../../ui/contextMenu';
import { notify } from '../../ui/toast';
import { account, signOut } from '../../kernel/account';
import { openTokens, TeamDialogs } from './dialogs';
import './team.css';

function leave(everywhere: boolean): void {
  signOut(everywhere).catch((err) => notify(errorMessage(err)));
}

function showMenu(ev: MouseEvent): void {
  openContextMenu(ev, [
    { label: 'API tokens…', testid: 'menu-tokens', action: openTokens },
    { label: 'Sign out', testid: 'menu-sign-out', action: () => leave(false) },
    { label: 'Sign out everywhere', testid: 'menu-sign-out-everywhere', action: () => leave(true), danger: true },
  ]);
}

/** Nothing in local mode; in team mode the user button and the dialogs it opens. */
export function UserMenu({ class: className = '' }: { class?: string }) {
  const me = account.value;
  if (!me) return null;
  return (
    <>
      <button class={`user-menu ${className}`.trim()} data-testid="user-menu" title="Account" onClick={showMenu}>
        <span data-testid="user-name">{me.name}</span>
        <span class="user-role" data-testid="user-role">{me.role}</span>
      </button>
      <TeamDialogs />
    </>
  );
}
