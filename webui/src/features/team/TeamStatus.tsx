// The status bar's team item: a read-only badge for viewers, then the signed-in person.
import { isViewer } from '../../kernel/account';
import { UserMenu } from './UserMenu';

export function TeamStatus() {
  return (
    <>
      {isViewer.value && (
        <span class="status-item readonly-badge" data-testid="status-readonly" title="You can read this project but not change it">
          Read-only: you are a viewer
        </span>
      )}
      <UserMenu class="status-item" />
    </>
  );
}
