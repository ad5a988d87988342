// Credentials for remotes. What a person types is kept in this page's memory only, never in
// browser storage; the server keeps them (encrypted) only when the person ticked "Remember".
import type { Credentials } from '../../api/git';
import { forgetSavedCredentials } from '../../api/git';
import { pid } from '../../kernel/session';

export const signedIn = new Map<string, Credentials>();

/** Forgets the credentials the server remembers for `remote`, and the ones this page holds. */
export async function forgetCredentials(remote: string): Promise<void> {
  signedIn.delete(remote);
  await forgetSavedCredentials(pid(), remote);
}
