// One text field per dynamic input of the model, pre-filled with the last shape used on it, and
// the server's `input_shape_required` / `input_shape_mismatch` message beside the field it names.
import { useEffect } from 'preact/hooks';
import type { FieldValue, FormValues } from './fields';
import { history } from './store';
import { dynamicInputs, lastShapes, SHAPE_PREFIX } from './shapes';

export interface ShapeRefusal {
  input: string;
  detail: string;
}

interface Props {
  model: string;
  values: FormValues;
  refusal: ShapeRefusal | null;
  disabled: boolean;
  onChange: (key: string, value: FieldValue) => void;
}

export function ShapeFields({ model, values, refusal, disabled, onChange }: Props) {
  const runs = history.value ?? [];
  const declared = dynamicInputs(runs, model);
  const given = Object.keys(values).filter((k) => k.startsWith(SHAPE_PREFIX)).map((k) => k.slice(SHAPE_PREFIX.length));
  const names = [...new Set([...Object.keys(declared), ...given, ...(refusal ? [refusal.input] : [])])];
  const last = lastShapes(runs, model);
  useEffect(() => {
    for (const name of names) if (values[SHAPE_PREFIX + name] === undefined && last[name]) onChange(SHAPE_PREFIX + name, last[name]);
  }, [names.join('\n'), model]);
  return (
    <>
      {names.map((name) => (
        <label key={name} class="field tool-field tool-field-text">
          <span>Shape of <span class="mono">{name}</span><em class="muted"> · dynamic dims must be given</em></span>
          <input class="mono" data-testid={`tool-shape-${name}`} value={String(values[SHAPE_PREFIX + name] ?? '')} disabled={disabled}
            placeholder={declared[name] ?? 'e.g. 1,3,640,640'} onInput={(ev) => onChange(SHAPE_PREFIX + name, ev.currentTarget.value)} />
          {refusal?.input === name && <div class="form-error" data-testid="tool-shape-error">{refusal.detail}</div>}
        </label>
      ))}
    </>
  );
}
