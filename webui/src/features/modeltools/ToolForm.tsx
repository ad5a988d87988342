// A tool's form, rendered from its field list: the main fields, then "More options".
import { useEffect, useState } from 'preact/hooks';
import type { ToolName } from '../../api/tools';
import { BackendSelect, loadServerBackends, serverBackends, serverBackendsError } from '../../ui/BackendSelect';
import { FIELDS, type Field, type FieldValue, type FormValues } from './fields';
import { projectPaths, type ProjectPaths } from './paths';
import { filesVersion } from '../../kernel/fileIndex';

interface FormProps {
  tool: ToolName;
  values: FormValues;
  disabled: boolean;
  onChange: (key: string, value: FieldValue) => void;
}

/** A model or folder of the project, picked from the ones the tree holds of that kind. */
function PathPicker({ field, props, paths }: { field: Field; props: FormProps; paths: ProjectPaths }) {
  const value = String(props.values[field.key] ?? '');
  const found = field.kind === 'folder' ? paths.dirs : paths.models.filter((m) => field.accept?.some((ext) => m.toLowerCase().endsWith(ext)) ?? true);
  // A model still to be made (Convert's default output) stays selectable.
  const choices = !value || found.includes(value) ? found : [value, ...found];
  return (
    <select class="mono" data-testid={`tool-field-${field.key}`} value={value} disabled={props.disabled}
      onChange={(ev) => props.onChange(field.key, ev.currentTarget.value)}>
      <option value="">{field.kind === 'folder' ? 'Choose a folder…' : 'Choose a model…'}</option>
      {choices.map((path) => <option key={path} value={path}>{path}</option>)}
    </select>
  );
}

function Input({ field, props, paths }: { field: Field; props: FormProps; paths: ProjectPaths }) {
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
  const control = field.kind === 'model' || field.kind === 'folder' ? <PathPicker field={field} props={props} paths={paths} /> : field.kind === 'backend' ? (
    <BackendSelect backends={serverBackends.value?.backends ?? null} value={String(value)} disabled={props.disabled} testid={testid}
      unknown={serverBackendsError.value ?? undefined} onChange={(v) => props.onChange(field.key, v)} />
  ) : field.kind === 'select' ? (
    <select data-testid={testid} value={String(value)} disabled={props.disabled}
      onChange={(ev) => props.onChange(field.key, ev.currentTarget.value)}>
      {field.options!.map(([v, label]) => <option key={v} value={v}>{label}</option>)}
    </select>
  ) : (
    <input data-testid={testid} value={String(value)} placeholder={field.placeholder} disabled={props.disabled}
      class={field.kind === 'text' ? 'mono' : undefined}
      inputMode={field.kind === 'int' ? 'numeric' : field.kind === 'float' ? 'decimal' : undefined}
      onInput={(ev) => props.onChange(field.key, ev.currentTarget.value)} />
  );
  return (
    <label class={`field tool-field tool-field-${field.kind}`}>
      <span>{field.label}{field.hint && <em class="muted"> · {field.hint}</em>}</span>
      {control}
    </label>
  );
}

function Fields({ fields, props, paths }: { fields: Field[]; props: FormProps; paths: ProjectPaths }) {
  return <>{fields.map((f) => <Input key={f.key} field={f} props={props} paths={paths} />)}</>;
}

/** The project's models and folders, read when the form first shows and when files come or go. */
function useProjectPaths(): ProjectPaths {
  const [paths, setPaths] = useState<ProjectPaths>({ dirs: [], models: [] });
  const version = filesVersion.value;
  useEffect(() => {
    let live = true;
    void projectPaths().then((found) => live && setPaths(found));
    return () => void (live = false);
  }, [version]);
  return paths;
}

/** Quantize's calibration folder defaults to a project folder named like one (calib, calibration…). */
function useCalibrationDefault(props: FormProps, paths: ProjectPaths): void {
  useEffect(() => {
    if (props.tool !== 'quantize' || props.values.calibration) return;
    const found = paths.dirs.find((dir) => /calib/i.test(dir.slice(dir.lastIndexOf('/') + 1)));
    if (found) props.onChange('calibration', found);
  }, [paths]);
}

export function ToolForm(props: FormProps) {
  const paths = useProjectPaths();
  useEffect(loadServerBackends, []);
  useCalibrationDefault(props, paths);
  const fields = FIELDS[props.tool];
  const main = fields.filter((f) => !f.advanced);
  const more = fields.filter((f) => f.advanced);
  return (
    <div class="tool-form" data-testid="tool-form">
      <Fields fields={main} props={props} paths={paths} />
      {more.length > 0 && (
        <details class="tool-more">
          <summary>More options</summary>
          <Fields fields={more} props={props} paths={paths} />
        </details>
      )}
    </div>
  );
}
