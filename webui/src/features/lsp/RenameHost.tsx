// The rename's preview (every file and changed line, Apply or Cancel) and, once applied, a bar with
// its Undo (also the palette's "Undo last rename"). Rendered once per page.
import { render } from 'preact';
import { Modal } from '../../ui/dialogs';
import { registerCommand } from '../../kernel/commands';
import { applyRename, lastRename, renamePlan, undoRename } from './rename';

function RenamePreview() {
  const plan = renamePlan.value;
  if (!plan) return null;
  const close = () => (renamePlan.value = null);
  const count = plan.files.reduce((sum, f) => sum + f.edits.length, 0);
  return (
    <Modal title={`Rename ${plan.from} to ${plan.to}`} testid="rename-preview" wide onClose={close}>
      <p class="modal-message" data-testid="rename-summary">
        {plan.problems.length
          ? 'The rename cannot be applied:'
          : `${count} ${count === 1 ? 'change' : 'changes'} in ${plan.files.length} ${plan.files.length === 1 ? 'file' : 'files'}.`}
      </p>
      {plan.problems.length > 0 && (
        <ul class="rename-problems" data-testid="rename-problems">
          {plan.problems.map((p) => <li key={p.path}><span class="mono">{p.path}</span>: {p.detail}</li>)}
        </ul>
      )}
      {plan.error && <p class="modal-message error-text" data-testid="rename-error">{plan.error}</p>}
      <div class="rename-files">
        {plan.files.map((file) => (
          <div key={file.path} data-testid="rename-file" data-path={file.path}>
            <div class="lsp-file">{file.path}{file.doc ? <span class="muted"> (open)</span> : null}</div>
            {file.changes.map((change) => (
              <div key={change.line} class="mono lsp-change">
                <div class="lsp-before">{change.line}: {change.before}</div>
                <div class="lsp-after">{change.line}: {change.after}</div>
              </div>
            ))}
          </div>
        ))}
      </div>
      <div class="modal-actions">
        <button class="btn" data-testid="rename-cancel" onClick={close}>Cancel</button>
        <button class="btn btn-primary" data-testid="rename-apply" disabled={plan.applying || plan.problems.length > 0}
          onClick={() => void applyRename()}>{plan.applying ? 'Renaming…' : 'Apply'}</button>
      </div>
    </Modal>
  );
}

function UndoBar() {
  const last = lastRename.value;
  if (!last) return null;
  return (
    <div class="rename-undo-bar" role="status" data-testid="rename-done">
      <span>Renamed {last.from} to {last.to} in {last.count} {last.count === 1 ? 'file' : 'files'}.</span>
      <button class="btn btn-small" data-testid="rename-undo" onClick={() => void undoRename()}>Undo</button>
      <button class="icon-btn" aria-label="Dismiss" title="Dismiss" onClick={() => (lastRename.value = null)}>×</button>
    </div>
  );
}

function RenameHost() {
  return (
    <>
      <RenamePreview />
      <UndoBar />
    </>
  );
}

export function registerRenameHost(): void {
  const host = document.createElement('div');
  document.body.append(host);
  render(<RenameHost />, host);
  registerCommand({ id: 'python.undo-rename', label: 'Undo last rename', run: () => void undoRename() });
}
