// Shown when a save hits a stale etag: their text (on disk) against mine, side by side.
import { useEffect, useRef } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { monacoApi } from '../../monaco/load';
import { disposeDiffModels, languageFor } from '../../monaco/options';
import { Modal } from '../../ui/dialogs';
import { notify } from '../../ui/toast';
import { conflict, resolveConflict, type Conflict } from './documents';

function DiffView({ value }: { value: Conflict }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // A conflict comes from saving a document's model, so Monaco has loaded.
    const monaco = monacoApi();
    const language = languageFor(value.doc.path);
    const original = monaco.editor.createModel(value.theirs, language);
    const modified = monaco.editor.createModel(value.mine, language);
    const diff = monaco.editor.createDiffEditor(host.current!, {
      theme: 'mnnwb-dark',
      automaticLayout: true,
      readOnly: true,
      renderSideBySide: true,
      minimap: { enabled: false },
      fontSize: 12,
    });
    diff.setModel({ original, modified });
    return () => {
      diff.dispose();
      disposeDiffModels(original, modified);
    };
  }, [value]);
  return <div class="diff-host" ref={host} data-testid="conflict-diff" />;
}

// Nothing is decided: the file stays unsaved and the next save asks again.
function dismiss(): void {
  conflict.value = null;
}

function choose(choice: 'mine' | 'theirs'): void {
  resolveConflict(choice).catch((err) => notify(errorMessage(err)));
}

export function ConflictDialog() {
  const value = conflict.value;
  if (!value) return null;
  return (
    <Modal title={`${value.doc.path} was changed by someone else`} testid="conflict-dialog" wide onClose={dismiss}>
      <p class="modal-message">Left: the version on disk (theirs). Right: your version (mine). Choose which one to keep.</p>
      <div class="diff-labels"><span>Theirs (on disk)</span><span>Mine</span></div>
      <DiffView value={value} />
      <div class="modal-actions">
        <button class="btn" data-testid="conflict-cancel" onClick={dismiss}>Keep editing</button>
        <span class="status-spacer" />
        <button class="btn" data-testid="conflict-take-theirs" onClick={() => choose('theirs')}>Take theirs</button>
        <button class="btn btn-primary" data-testid="conflict-keep-mine" onClick={() => choose('mine')}>Keep mine</button>
      </div>
    </Modal>
  );
}
