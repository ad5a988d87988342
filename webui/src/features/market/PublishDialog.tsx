// "Publish…" on a model file: a form pre-filled from the file's lineage; the registry keeps the
// files by content hash and the lineage with the version. A taken version is said plainly.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, errorMessage } from '../../api/client';
import { publishModel } from '../../api/market';
import { Modal } from '../../ui/dialogs';
import { notify } from '../../ui/toast';
import { pid } from '../workbench/session';
import { draftFor, type PublishDraft } from './draft';

function explain(err: unknown, draft: PublishDraft): string {
  if (err instanceof ApiError && err.code === 'version_exists') {
    return `Version ${draft.version} of ${draft.id} is already published. Choose another version.`;
  }
  return errorMessage(err);
}

function Field(props: { label: string; testid: string; value: string; set: (v: string) => void }) {
  return (
    <label class="field">
      <span>{props.label}</span>
      <input data-testid={props.testid} value={props.value} onInput={(ev) => props.set(ev.currentTarget.value)} />
    </label>
  );
}

function PublishForm({ initial, close }: { initial: PublishDraft; close: () => void }) {
  const [draft, setDraft] = useState(initial);
  const [files, setFiles] = useState(initial.files.join('\n'));
  const [task, setTask] = useState('');
  const [summary, setSummary] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (key: keyof PublishDraft) => (value: string) => setDraft({ ...draft, [key]: value });
  const submit = async () => {
    setBusy(true);
    setError(null);
    const paths = files.split('\n').map((f) => f.trim()).filter(Boolean);
    try {
      const done = await publishModel(pid(), { id: draft.id, version: draft.version, files: paths, name: draft.name || undefined, task: task || undefined, summary: summary || undefined });
      notify(`Published ${draft.id} ${done.version} to the team registry`, 'info');
      close();
    } catch (err) {
      setError(explain(err, draft));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="form" onSubmit={(ev) => { ev.preventDefault(); void submit(); }}>
      <Field label="Package id" testid="publish-id" value={draft.id} set={set('id')} />
      <Field label="Version" testid="publish-version" value={draft.version} set={set('version')} />
      <Field label="Name" testid="publish-name" value={draft.name} set={set('name')} />
      <Field label="Task" testid="publish-task" value={task} set={setTask} />
      <Field label="Summary" testid="publish-summary" value={summary} set={setSummary} />
      <label class="field">
        <span>Files (one project path a line)</span>
        <textarea data-testid="publish-files" rows={4} value={files} onInput={(ev) => setFiles(ev.currentTarget.value)} />
      </label>
      {error && <p class="form-error" data-testid="publish-error">{error}</p>}
      <div class="modal-actions">
        <button type="button" class="btn" data-testid="publish-cancel" onClick={close}>Cancel</button>
        <button type="submit" class="btn btn-primary" data-testid="publish-ok" disabled={busy}>Publish</button>
      </div>
    </form>
  );
}

function PublishDialog({ path, close }: { path: string; close: () => void }) {
  const [draft, setDraft] = useState<PublishDraft | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    draftFor(pid(), path).then(setDraft, (err) => setError(errorMessage(err)));
  }, [path]);
  return (
    <Modal title={`Publish ${path}`} testid="publish-dialog" wide onClose={close}>
      {error && <p class="form-error">{error}</p>}
      {!draft && !error && <p class="modal-message">Reading the lineage…</p>}
      {draft && <PublishForm initial={draft} close={close} />}
    </Modal>
  );
}

/** Shows the dialog in a root of its own, removed when it closes. */
export function openPublish(path: string): void {
  const host = document.body.appendChild(document.createElement('div'));
  const close = () => {
    render(null, host);
    host.remove();
  };
  render(<PublishDialog path={path} close={close} />, host);
}
