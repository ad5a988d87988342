// Team mode in the project page: the Members button, the caller's role, read-only editors for viewers.
import { errorMessage } from '../../api/client';
import { notify } from '../../ui/toast';
import { registerEditorExtension } from '../../kernel/editorExtensions';
import { registerTitleAction } from '../../kernel/panels';
import { pid } from '../../kernel/session';
import { loadAccount, loadProjectRole } from '../../kernel/account';
import { openMembers } from './dialogs';
import { readOnlyForViewers } from './readOnly';

async function startTeam(): Promise<void> {
  if (!(await loadAccount())) return;
  registerTitleAction({ id: 'members', label: 'Members', glyph: '⚇', icon: 'organization', run: () => openMembers(pid()) });
  await loadProjectRole(pid());
}

export function registerTeamFeature(): void {
  registerEditorExtension(readOnlyForViewers);
  startTeam().catch((err) => notify(errorMessage(err)));
}
