// Where and how a pipeline runs: "This machine" or a paired device, and per-stage variants
// written one a line as on the command line (`read.model=recogniser-int8.mnn`).
import { useEffect } from 'preact/hooks';
import type { StageVariant } from '../../../api/tools';
import { devices, watchDevices } from '../../../kernel/devices';

export interface RunConfig { device: string; variants: string }

const KEYS = ['model', 'threads', 'backend', 'precision'] as const;

/** `stage.key=value` lines as the API's variants; a malformed line is thrown, by its text. */
export function parseVariants(text: string): Record<string, StageVariant> | null {
  const found: Record<string, Record<string, string | number>> = {};
  for (const line of text.split('\n').map((l) => l.trim()).filter(Boolean)) {
    const match = /^(.+)\.(\w+)=(.+)$/.exec(line);
    if (!match || !(KEYS as readonly string[]).includes(match[2])) {
      throw new Error(`${line}: expected stage.key=value, key one of ${KEYS.join(', ')}`);
    }
    const [, stage, key, value] = match;
    (found[stage] ??= {})[key] = /^\d+$/.test(value) ? Number(value) : value;
  }
  return Object.keys(found).length ? (found as Record<string, StageVariant>) : null;
}

export function DeviceSelect({ value, onChange, testid }: { value: string; onChange: (id: string) => void; testid: string }) {
  useEffect(() => watchDevices(), []);
  return (
    <select class="input" value={value} data-testid={testid} title="Where the pipeline runs"
      onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
      <option value="">This machine</option>
      {devices.value.map((d) => (
        <option key={d.id} value={d.id}>{d.online ? '● ' : '○ '}{d.name}{d.online ? '' : ' (offline)'}</option>
      ))}
    </select>
  );
}

export function ConfigFields({ label, config, onChange }: { label: string; config: RunConfig; onChange: (c: RunConfig) => void }) {
  const id = label.toLowerCase();
  return (
    <fieldset class="pipeline-config" data-testid={`compare-${id}`}>
      <legend>{label}</legend>
      <label class="spec-field"><span>Runs on</span>
        <DeviceSelect value={config.device} testid={`compare-${id}-device`} onChange={(device) => onChange({ ...config, device })} />
      </label>
      <label class="spec-field"><span>Variants (stage.key=value, one a line)</span>
        <textarea class="input mono" rows={3} cols={36} value={config.variants} data-testid={`compare-${id}-variants`}
          placeholder="read.model=recogniser-int8.mnn"
          onInput={(e) => onChange({ ...config, variants: (e.target as HTMLTextAreaElement).value })} />
      </label>
    </fieldset>
  );
}
