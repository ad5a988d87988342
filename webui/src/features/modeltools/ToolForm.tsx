// A tool's form, rendered from its field list: the main fields, then "More options".
import { useEffect, useState } from 'preact/hooks';
import type { ToolName } from '../../api/tools';
import { FIELDS, type Field, type FieldValue, type FormValues } from './fields';
import { projectPaths, type ProjectPaths } from './paths';

interface FormProps {
  tool: ToolName;
  panelId: string;
  values: FormValues;
  disabled: boolean;
  onChange: (key: string, value: FieldValue) => void;
}

function Input({ field, props, listId }: { field: Field; props: FormProps; listId: string }) {
  const value = props.values[field.key];
  const testid = `tool-field-${field.key}`;
  if (field.kind === 'bool') {
    return (
      <label class="tool-check">
        <input type="checkbox" data-testid={testid} checked={Boolean(value)} disabled={props.disabled}
          onChange={(ev) => props.onChange(field.key, ev.currentTarget.checked)} />
        <span>{field.label}</span>
      </label>
    );
  }
  const control = field.kind === 'select' ? (
    <select data-testid={testid} value={String(value)} disabled={props.disabled}
      onChange={(ev) => props.onChange(field.key, ev.currentTarget.value)}>
      {field.options!.map(([v, label]) => <option key={v} value={v}>{label}</option>)}
    </select>
  ) : (
    <input data-testid={testid} value={String(value)} placeholder={field.placeholder} disabled={props.disabled}
      class={field.kind === 'model' || field.kind === 'folder' || field.kind === 'text' ? 'mono' : undefined}
      inputMode={field.kind === 'int' ? 'numeric' : field.kind === 'float' ? 'decimal' : undefined}
      list={field.kind === 'folder' || field.kind === 'model' ? listId : undefined}
      onInput={(ev) => props.onChange(field.key, ev.currentTarget.value)} />
  );
  return (
    <label class={`field tool-field tool-field-${field.kind}`}>
      <span>{field.label}{field.hint && <em class="muted"> · {field.hint}</em>}</span>
      {control}
    </label>
  );
}

function Fields({ fields, props }: { fields: Field[]; props: FormProps }) {
  const list = (f: Field) => `${props.panelId}-${f.kind === 'folder' ? 'dirs' : 'models'}`;
  return <>{fields.map((f) => <Input key={f.key} field={f} props={props} listId={list(f)} />)}</>;
}

/** Suggestions for the path fields, read once when the form first shows. */
function PathLists({ panelId }: { panelId: string }) {
  const [paths, setPaths] = useState<ProjectPaths>({ dirs: [], models: [] });
  useEffect(() => {
    let live = true;
    void projectPaths().then((found) => live && setPaths(found));
    return () => void (live = false);
  }, []);
  return (
    <>
      <datalist id={`${panelId}-dirs`}>{paths.dirs.map((d) => <option key={d} value={d} />)}</datalist>
      <datalist id={`${panelId}-models`}>{paths.models.map((m) => <option key={m} value={m} />)}</datalist>
    </>
  );
}

export function ToolForm(props: FormProps) {
  const fields = FIELDS[props.tool];
  const main = fields.filter((f) => !f.advanced);
  const more = fields.filter((f) => f.advanced);
  return (
    <div class="tool-form" data-testid="tool-form">
      <Fields fields={main} props={props} />
      {more.length > 0 && (
        <details class="tool-more">
          <summary>More options</summary>
          <Fields fields={more} props={props} />
        </details>
      )}
      <PathLists panelId={props.panelId} />
    </div>
  );
}
