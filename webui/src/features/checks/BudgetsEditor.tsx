// The budgets of mnnwb.toml as a form: one card per budget (model, reference, its limits with
// their units, threads, loops and device), rows added and removed, a template for the project's
// models, and the server's errors shown at the field they name. The file stays the truth: a save
// writes the same [[budget]] tables the checks read, and "Edit as text" opens it in the editor.
import { useEffect, useState } from 'preact/hooks';
import { budgetTables, budgetTemplate, saveBudgets } from '../../api/checks';
import { ApiError, errorMessage } from '../../api/client';
import { openEditor } from '../../kernel/editor';
import { filesVersion, projectFiles } from '../../kernel/fileIndex';
import { isViewer } from '../../kernel/account';
import { pid } from '../../kernel/session';
import './checks.css';
import { budgetDraft } from './budgetDraft';
import { budgetOf, LIMITS, rowOf, SETTINGS, templateRow, unknownKeys, type BudgetField, type Row } from './budgetRows';

export const CONFIG = 'mnnwb.toml';

interface FieldError {
  budget: number;
  field: string;
  detail: string;
}

const fieldErrors = (err: unknown): FieldError[] =>
  err instanceof ApiError && Array.isArray(err.body.errors) ? (err.body.errors as FieldError[]) : [];

function useProjectFiles(suffixes: string[]): string[] {
  const [files, setFiles] = useState<string[]>([]);
  const version = filesVersion.value;
  useEffect(() => {
    void projectFiles().then((all) => setFiles(all.filter((f) => suffixes.some((s) => f.endsWith(s)))));
  }, [version]);
  return files;
}

function FilePick(props: { label: string; value: string; files: string[]; none?: string; testid: string; onChange: (v: string) => void }) {
  const options = props.value && !props.files.includes(props.value) ? [props.value, ...props.files] : props.files;
  return (
    <label class="budget-field">
      <span>{props.label}</span>
      <select data-testid={props.testid} value={props.value} onChange={(ev) => props.onChange((ev.target as HTMLSelectElement).value)}>
        <option value="">{props.none ?? 'Pick a model…'}</option>
        {options.map((f) => <option key={f} value={f}>{f}</option>)}
      </select>
    </label>
  );
}

function Field(props: { field: BudgetField; row: Row; error?: string; onChange: (v: string) => void }) {
  const { field } = props;
  return (
    <label class="budget-field" data-field={field.key}>
      <span>{field.label}{field.unit && <span class="muted"> ({field.unit})</span>}</span>
      <input class="input" data-testid={`budget-${field.key}`} inputMode={field.kind === 'text' ? 'text' : 'decimal'}
        value={props.row.values[field.key]} aria-invalid={Boolean(props.error)}
        onInput={(ev) => props.onChange((ev.target as HTMLInputElement).value)} />
      {props.error && <span class="form-error" data-testid="budget-error" data-field={field.key}>{props.error}</span>}
    </label>
  );
}

function BudgetCard(props: { row: Row; number: number; errors: FieldError[]; models: string[]; references: string[];
  onChange: (row: Row) => void; onRemove: () => void }) {
  const { row } = props;
  const set = (key: string) => (value: string) => props.onChange({ ...row, values: { ...row.values, [key]: value } });
  const errorOf = (key: string) => props.errors.find((e) => e.field === key)?.detail;
  const known = new Set(['model', 'reference', ...LIMITS.map((f) => f.key), ...SETTINGS.map((f) => f.key)]);
  const others = props.errors.filter((e) => !known.has(e.field));
  const unknown = unknownKeys(row);
  return (
    <fieldset class="budget-card" data-testid="budget-row" data-model={row.values.model}>
      <legend>Budget {props.number}</legend>
      <div class="budget-grid">
        <FilePick label="Model" value={row.values.model} files={props.models} testid="budget-model" onChange={set('model')} />
        <FilePick label="Reference" value={row.values.reference} files={props.references} none="(none)" testid="budget-reference"
          onChange={set('reference')} />
        {LIMITS.map((f) => <Field key={f.key} field={f} row={row} error={errorOf(f.key)} onChange={set(f.key)} />)}
        {SETTINGS.map((f) => <Field key={f.key} field={f} row={row} error={errorOf(f.key)} onChange={set(f.key)} />)}
      </div>
      {errorOf('model') && <div class="form-error" data-testid="budget-error" data-field="model">{errorOf('model')}</div>}
      {errorOf('reference') && <div class="form-error" data-testid="budget-error" data-field="reference">{errorOf('reference')}</div>}
      {others.map((e) => <div key={e.field} class="form-error" data-testid="budget-error" data-field={e.field}>{e.field ? `${e.field}: ` : ''}{e.detail}</div>)}
      {unknown.length > 0 && <div class="muted" data-testid="budget-unknown">Also in the file, kept as written: {unknown.join(', ')}</div>}
      <button class="btn btn-small" data-testid="budget-remove" onClick={props.onRemove}>Remove</button>
    </fieldset>
  );
}

export function BudgetsEditor() {
  const [rows, setRows] = useState<Row[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [message, setMessage] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const models = useProjectFiles(['.mnn']);
  const references = useProjectFiles(['.onnx', '.mnn']);
  const load = () => budgetTables(pid()).then((t) => { setRows(t.budgets.map(rowOf)); setLoadError(null); },
    (err) => setLoadError(errorMessage(err)));
  useEffect(() => void load(), []);

  const edit = (next: Row[]) => {
    setRows(next);
    setMessage(null);
  };
  useEffect(() => {  // budgets handed over by the flow: shown as rows, saved by the person
    const draft = budgetDraft.value;
    if (!draft || rows === null) return;
    budgetDraft.value = null;
    const have = new Set(rows.map((r) => r.values.model));
    const made = draft.filter((b) => !have.has(b.model)).map(templateRow);
    if (made.length) {
      edit([...rows, ...made]);
      setMessage(`Filled from the flow: check the limits, then save to ${CONFIG}.`);
    }
  }, [budgetDraft.value, rows]);
  const fromTemplate = async () => {
    try {
      const have = new Set((rows ?? []).map((r) => r.values.model));
      const made = (await budgetTemplate(pid())).filter((b) => !have.has(b.model)).map(templateRow);
      edit([...(rows ?? []), ...made]);
      if (!made.length) setMessage('Every model of the project has a budget already.');
    } catch (err) {
      setMessage(errorMessage(err));
    }
  };
  const save = async () => {
    if (!rows) return;
    setSaving(true);
    try {
      await saveBudgets(pid(), rows.map(budgetOf));
      setErrors([]);
      setMessage(`Saved to ${CONFIG}.`);
      await load();
    } catch (err) {
      setErrors(fieldErrors(err));
      setMessage(errorMessage(err));
    } finally {
      setSaving(false);
    }
  };

  const textButton = <button class="btn" data-testid="budgets-edit-text" onClick={() => openEditor(CONFIG)}>Edit as text</button>;
  if (loadError) {
    return <div class="panel-message" data-testid="budgets-load-error">Cannot show {CONFIG} as a form: {loadError} {textButton}</div>;
  }
  if (!rows) return <div class="panel-message">Loading {CONFIG}…</div>;
  const readOnly = isViewer.value;
  return (
    <div class="budgets-editor" data-testid="budgets-editor">
      <div class="budgets-bar">
        <button class="btn" data-testid="budgets-template" disabled={readOnly} onClick={() => void fromTemplate()}>Start from template</button>
        <button class="btn" data-testid="budgets-add" disabled={readOnly} onClick={() => edit([...rows, rowOf({})])}>Add budget</button>
        {textButton}
        <button class="btn btn-primary" data-testid="budgets-save" disabled={readOnly || saving} onClick={() => void save()}>
          {saving ? 'Saving…' : 'Save'}
        </button>
      </div>
      {message && <div class={errors.length ? 'form-error' : 'muted'} data-testid="budgets-message">{message}</div>}
      {rows.length === 0 && <p class="muted">No budgets yet: start from the template, or add one.</p>}
      {rows.map((row, i) => (
        <BudgetCard key={i} row={row} number={i + 1} errors={errors.filter((e) => e.budget === i + 1)} models={models} references={references}
          onChange={(next) => edit(rows.map((r, j) => (j === i ? next : r)))} onRemove={() => edit(rows.filter((_, j) => j !== i))} />
      ))}
    </div>
  );
}
