// "Publish…" on a model file: a form pre-filled from the file's lineage (license and authors from
// the id's previous version, to confirm; accuracy never), with what will be published; the
// registry keeps the files by content hash and the lineage with the version. A taken version is
// said plainly.
import { render } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError, errorMessage } from '../../api/client';
import { publishModel, type PublishRequest } from '../../api/market';
import { Modal } from '../../ui/dialogs';
import { notify } from '../../ui/toast';
import { useAction, useResource } from '../../kernel/resource';
import { pid } from '../../kernel/session';
import { draftFor, type PublishDraft } from './draft';
import './market.css';

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

/** The request, or why it cannot be sent: an accuracy is a number 0..1 with what it was
 * measured on, or left empty (then the card says none was measured). */
function request(draft: PublishDraft, files: string, facts: Facts): PublishRequest | string {
  const paths = files.split('\n').map((f) => f.trim()).filter(Boolean);
  const accuracy = facts.accuracy.trim() === '' ? undefined : Number(facts.accuracy);
  if (accuracy !== undefined && !(accuracy >= 0 && accuracy <= 1)) return 'Accuracy is a number from 0 to 1 (0.964 for 96.4 %).';
  if ((accuracy === undefined) !== (facts.evalSet.trim() === '')) return 'Give the accuracy and what it was measured on together, or neither.';
  const authors = facts.authors.split(',').map((a) => a.trim()).filter(Boolean);
  return {
    id: draft.id, version: draft.version, files: paths, name: draft.name || undefined,
    task: facts.task || undefined, summary: facts.summary || undefined, license: facts.license.trim() || undefined,
    authors: authors.length ? authors : undefined, accuracy, eval_set: accuracy === undefined ? undefined : facts.evalSet.trim(),
  };
}

interface Facts {
  task: string;
  summary: string;
  license: string;
  authors: string;
  accuracy: string;
  evalSet: string;
}

/** What will be published, as the card will show it. */
function Preview({ body }: { body: PublishRequest | string }) {
  if (typeof body === 'string') return <p class="form-error" data-testid="publish-invalid">{body}</p>;
  return (
    <div class="publish-preview" data-testid="publish-preview">
      <strong>Will publish</strong> {body.id} {body.version}: {body.files.length} file(s) ({body.files.join(', ')});
      license {body.license ?? 'from an algorithm.toml among the files, else none given'}; accuracy {body.accuracy === undefined || body.accuracy === null ? 'none measured' : `${(body.accuracy * 100).toFixed(1)} % on ${body.eval_set}`}.
      Inputs and outputs come from an algorithm.toml among the files, else from the model's spec.
    </div>
  );
}

function PublishForm({ initial, close }: { initial: PublishDraft; close: () => void }) {
  const [draft, setDraft] = useState(initial);
  const [files, setFiles] = useState(initial.files.join('\n'));
  const [facts, setFacts] = useState<Facts>({ task: '', summary: '', license: initial.license, authors: initial.authors, accuracy: '', evalSet: '' });
  const set = (key: keyof PublishDraft) => (value: string) => setDraft({ ...draft, [key]: value });
  const fact = (key: keyof Facts) => (value: string) => setFacts({ ...facts, [key]: value });
  const body = request(draft, files, facts);
  const publish = useAction(async (checked: PublishRequest) => {
    publish.setError(null);
    const done = await publishModel(pid(), checked);
    notify(`Published ${draft.id} ${done.version} to the team registry`, 'info');
    close();
  }, (err) => explain(err, draft));
  const { running: busy, error } = publish;
  const submit = async () => {
    if (typeof body === 'string') return;
    await publish.run(body);
  };
  return (
    <form class="form publish-form" onSubmit={(ev) => { ev.preventDefault(); void submit(); }}>
      <Field label="Package id" testid="publish-id" value={draft.id} set={set('id')} />
      <Field label="Version" testid="publish-version" value={draft.version} set={set('version')} />
      <Field label="Name" testid="publish-name" value={draft.name} set={set('name')} />
      <Field label="Task" testid="publish-task" value={facts.task} set={fact('task')} />
      <Field label="Summary" testid="publish-summary" value={facts.summary} set={fact('summary')} />
      <Field label="License (SPDX id, e.g. Apache-2.0)" testid="publish-license" value={facts.license} set={fact('license')} />
      <Field label="Authors (comma-separated; you when empty)" testid="publish-authors" value={facts.authors} set={fact('authors')} />
      <Field label="Accuracy (0 to 1; empty if not measured)" testid="publish-accuracy" value={facts.accuracy} set={fact('accuracy')} />
      <Field label="Measured on (evaluation set)" testid="publish-eval-set" value={facts.evalSet} set={fact('evalSet')} />
      <label class="field">
        <span>Files (one project path a line)</span>
        <textarea data-testid="publish-files" rows={4} value={files} onInput={(ev) => setFiles(ev.currentTarget.value)} />
      </label>
      <Preview body={body} />
      {error && <p class="form-error" data-testid="publish-error">{error}</p>}
      <div class="modal-actions">
        <button type="button" class="btn" data-testid="publish-cancel" onClick={close}>Cancel</button>
        <button type="submit" class="btn btn-primary" data-testid="publish-ok" disabled={busy || typeof body === 'string'}>Publish</button>
      </div>
    </form>
  );
}

function PublishDialog({ path, close }: { path: string; close: () => void }) {
  const read = useResource(() => draftFor(pid(), path), [path]);
  const draft = read.data;
  const error = read.error === null ? null : errorMessage(read.error);
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
