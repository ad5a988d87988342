// A select of the machine types PAI-DLC offers in the configured region (ListEcsSpecs).
import { useEffect, useState } from 'preact/hooks';
import { listEcsSpecs, type EcsSpec } from '../../api/jobs';
import { describeError } from './actions';

function describe(spec: EcsSpec): string {
  const gpu = spec.gpu ? ` · ${spec.gpu}× ${spec.gpu_type || 'GPU'}` : '';
  return `${spec.instance_type} — ${spec.cpu} vCPU · ${spec.memory_gb} GiB${gpu}`;
}

const NOT_SET_UP = 'Save the settings to list the machine types.';

/** `configured`: PAI-DLC settings are saved, so the cloud can be asked (else it is not). */
export function EcsSpecPicker(props: { value: string; onChange: (value: string) => void; configured?: boolean }) {
  const [specs, setSpecs] = useState<EcsSpec[] | null>(null);
  const [error, setError] = useState<string | null>(props.configured === false ? NOT_SET_UP : null);
  useEffect(() => {
    if (props.configured === false) return;
    listEcsSpecs().then(setSpecs, (err: unknown) => setError(describeError(err)));
  }, []);
  const known = specs?.some((s) => s.instance_type === props.value);
  if (error) {
    // Without the list (PAI-DLC not set up yet, or unreachable) the type can still be typed in.
    return (
      <label class="field">
        <span>ECS spec</span>
        <input class="mono" data-testid="ecs-spec" value={props.value} placeholder="ecs.g6.xlarge"
          onInput={(ev) => props.onChange(ev.currentTarget.value)} />
        <small class="field-error" data-testid="ecs-spec-error" title={error}>{error}</small>
      </label>
    );
  }
  return (
    <label class="field">
      <span>ECS spec</span>
      <select data-testid="ecs-spec" value={props.value} disabled={!specs}
        onChange={(ev) => props.onChange(ev.currentTarget.value)}>
        {!known && <option value={props.value}>{props.value || 'Choose a machine type'}</option>}
        {specs?.map((spec) => (
          <option key={spec.instance_type} value={spec.instance_type} disabled={!spec.available}>{describe(spec)}</option>
        ))}
      </select>
      {!specs && <small class="muted">Loading the machine types…</small>}
    </label>
  );
}
