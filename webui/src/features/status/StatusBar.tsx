// The bottom bar: connection state, the current file and its save state.
import { docsVersion, getDoc, type SaveState } from '../editor/documents';
import { BranchSwitcher } from '../git/BranchSwitcher';
import { TeamStatus } from '../team/TeamStatus';
import { activePath } from '../workbench/active';
import { session } from '../workbench/session';

const CONNECTION_LABELS = {
  connecting: 'Connecting…',
  connected: 'Connected',
  reconnecting: 'Reconnecting…',
  offline: 'Offline',
} as const;

const SAVE_LABELS: Record<SaveState, string> = {
  clean: 'Saved',
  dirty: 'Unsaved changes',
  saving: 'Saving…',
  error: 'Save failed',
};

export function StatusBar({ version }: { version: string }) {
  const connection = session().socket.state.value;
  const path = activePath.value;
  void docsVersion.value;
  const doc = path ? getDoc(path) : undefined;
  const save = doc ? doc.state.value : null;
  return (
    <footer class={`statusbar conn-${connection}`} data-testid="statusbar">
      <span class="status-item" data-testid="status-connection" data-state={connection}>
        <span class="status-dot" aria-hidden="true" />
        {CONNECTION_LABELS[connection]}
      </span>
      <BranchSwitcher />
      <span class="status-item mono" data-testid="status-file">{path ?? ''}</span>
      {save && (
        <span class={`status-item save-${save}`} data-testid="status-save" data-state={save}>
          {doc?.disk.value ? 'Changed on disk · ' : ''}{SAVE_LABELS[save]}
        </span>
      )}
      <span class="status-spacer" />
      <TeamStatus />
      <span class="status-item muted">MNN Workbench {version}</span>
    </footer>
  );
}
