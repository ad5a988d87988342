// Who is signed in (team mode only) and the caller's role on the open project.
import { computed, signal } from '@preact/signals';
import { ApiError, redirectToSignInOnUnauthorized } from '../api/client';
import { asProjectRole, getAccount, listMembers, logout, type Account, type Member, type ProjectRole } from '../api/team';
import { checkBeforeRetryAfterAccessChange, closeAllSockets } from '../ws/socket';

/** The signed-in person in team mode; null in local mode or until known. */
export const account = signal<Account | null>(null);
/** The caller's role on the project this tab shows; null on the home page or in local mode. */
export const projectRole = signal<ProjectRole | null>(null);
export const isViewer = computed(() => projectRole.value === 'viewer');

/** Why a write action is disabled for a viewer: `viewerReason('commit')`. */
export const viewerReason = (what: string): string => `Viewers cannot ${what}: an owner can make you an editor.`;

export async function loadAccount(): Promise<Account | null> {
  const me = await getAccount();
  if (me.mode !== 'team') return null;
  redirectToSignInOnUnauthorized(true);
  checkBeforeRetryAfterAccessChange(stillSignedIn);
  account.value = me;
  return me;
}

/** Admins have owner rights everywhere; everyone else has the role the member list gives them. */
export function roleFrom(me: Account, members: Member[]): ProjectRole | null {
  if (me.role === 'admin') return 'owner';
  const role = members.find((m) => m.user === me.name)?.role;
  return role === undefined ? null : asProjectRole(role);
}

export async function loadProjectRole(pid: string): Promise<Member[]> {
  const members = await listMembers(pid);
  if (account.value) projectRole.value = roleFrom(account.value, members);
  return members;
}

/** Whether this tab's sign-in still holds. One that ended sends the page to the sign-in page
 * (the request's 401 does); an error of any other kind is no answer, and the caller goes on. */
async function stillSignedIn(): Promise<boolean> {
  try {
    await getAccount();
    return true;
  } catch (err) {
    return !(err instanceof ApiError && err.status === 401);
  }
}

export async function signOut(everywhere: boolean): Promise<void> {
  // Nothing else may send the page elsewhere while it leaves, nor knock on the server again.
  redirectToSignInOnUnauthorized(false);
  closeAllSockets();
  try {
    await logout(everywhere);
  } catch (err) {
    // A session that has already ended is as good as signed out.
    if (!(err instanceof ApiError && err.status === 401)) {
      redirectToSignInOnUnauthorized(true);
      throw err;
    }
  }
  location.assign('/login');
}
