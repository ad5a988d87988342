// What a panel shows when something it needs is missing: what is missing, why it matters, and
// the one action that fixes it (docs/ide.md, "Panels say what is missing").
import type { ComponentChildren } from 'preact';
import './emptyState.css';

export interface EmptyAction {
  label: string;
  testid: string;
  run: () => void;
}

export function EmptyState({ testid, title, children, action }: {
  testid: string;
  title: string;
  children?: ComponentChildren;
  action?: EmptyAction;
}) {
  return (
    <div class="empty-state" data-testid={testid} role="status">
      <div class="empty-state-title">{title}</div>
      {children && <div class="empty-state-text">{children}</div>}
      {action && (
        <button type="button" class="btn btn-small btn-primary" data-testid={action.testid} onClick={action.run}>
          {action.label}
        </button>
      )}
    </div>
  );
}
