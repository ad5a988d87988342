// A model's spec (docs/model-spec.md) on its card: what each input takes (shape with defaults
// for its dynamic dims, kind, layout, colour order, resize, scale / mean / std) and what each
// output means (labels, characters, threshold). A model without one shows a draft from its
// file, marked as such, until it is saved.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, errorMessage } from '../../../api/client';
import { getModelSpec, putModelSpec, type ModelSpecInfo, type SpecBody, type SpecInput, type SpecOutput } from '../../../api/tools';
import { isViewer } from '../../../kernel/account';
import { pid } from '../../../kernel/session';
import { listText, numbersOf, optionalNumber } from './values';
import './spec.css';

const INPUT_KINDS = ['image', 'audio', 'tensor'] as const;
const LAYOUTS = ['NCHW', 'NHWC', 'NC', 'NCW', 'NWC', ''] as const;
const COLORS = ['RGB', 'BGR', 'GRAY'] as const;
const RESIZES = ['stretch', 'letterbox', 'center_crop'] as const;
const OUTPUT_KINDS = ['logits', 'probabilities', 'boxes', 'text', 'mask', 'embedding', 'tensor'] as const;

interface Props {
  path: string;
  /** Called with the saved spec, so Try it uses it at once. */
  onSaved?: (spec: ModelSpecInfo) => void;
}

function Select<T extends string>({ label, value, options, onChange, testid, disabled }: {
  label: string; value: T; options: readonly T[]; onChange: (v: T) => void; testid: string; disabled: boolean;
}) {
  return (
    <label class="spec-field">
      <span>{label}</span>
      <select value={value} data-testid={testid} disabled={disabled} onChange={(e) => onChange((e.target as HTMLSelectElement).value as T)}>
        {options.map((o) => <option key={o} value={o}>{o || '(none)'}</option>)}
      </select>
    </label>
  );
}

function Text({ label, value, onChange, testid, disabled, placeholder, title }: {
  label: string; value: string; onChange: (v: string) => void; testid: string; disabled: boolean; placeholder?: string; title?: string;
}) {
  return (
    <label class="spec-field" title={title}>
      <span>{label}</span>
      <input class="input mono" value={value} data-testid={testid} disabled={disabled} placeholder={placeholder}
        onInput={(e) => onChange((e.target as HTMLInputElement).value)} />
    </label>
  );
}

function InputRow({ entry, index, onChange, disabled }: {
  entry: SpecInput; index: number; onChange: (e: SpecInput) => void; disabled: boolean;
}) {
  const dynamic = entry.shape.some((d) => d <= 0);
  const set = (patch: Partial<SpecInput>) => onChange({ ...entry, ...patch });
  const id = (field: string) => `spec-input-${index}-${field}`;
  return (
    <fieldset class="spec-entry" data-testid={`spec-input-${entry.name}`}>
      <legend class="mono">{entry.name} <span class="muted">[{entry.shape.map((d) => (d > 0 ? d : '?')).join(', ')}]</span></legend>
      {dynamic && (
        <Text label="Default shape" testid={id('default')} disabled={disabled} value={listText(entry.default_shape)}
          placeholder={entry.shape.map((d) => (d > 0 ? d : '?')).join(', ')}
          title="The shape a run uses when it gives none: every ? filled"
          onChange={(v) => set({ default_shape: numbersOf(v) })} />
      )}
      <Select label="Kind" testid={id('kind')} disabled={disabled} value={entry.kind ?? 'tensor'} options={INPUT_KINDS} onChange={(kind) => set({ kind })} />
      <Select label="Layout" testid={id('layout')} disabled={disabled} value={(entry.layout ?? '') as (typeof LAYOUTS)[number]} options={LAYOUTS} onChange={(layout) => set({ layout })} />
      {entry.kind === 'image' && (
        <>
          <Select label="Colour" testid={id('color')} disabled={disabled} value={entry.color ?? 'RGB'} options={COLORS} onChange={(color) => set({ color })} />
          <Select label="Resize" testid={id('resize')} disabled={disabled} value={entry.resize ?? 'stretch'} options={RESIZES} onChange={(resize) => set({ resize })} />
          <Text label="Scale" testid={id('scale')} disabled={disabled} value={entry.scale === undefined ? '' : String(entry.scale)}
            placeholder="1" title="Each pixel (0-255) is multiplied by it first, e.g. 0.00392 for 1/255"
            onChange={(v) => set({ scale: optionalNumber(v) })} />
          <Text label="Mean" testid={id('mean')} disabled={disabled} value={listText(entry.mean)} placeholder="0.485, 0.456, 0.406"
            onChange={(v) => set({ mean: numbersOf(v) })} />
          <Text label="Std" testid={id('std')} disabled={disabled} value={listText(entry.std)} placeholder="0.229, 0.224, 0.225"
            onChange={(v) => set({ std: numbersOf(v) })} />
        </>
      )}
      {entry.kind === 'audio' && (
        <Text label="Sample rate (Hz)" testid={id('rate')} disabled={disabled} value={entry.sample_rate ? String(entry.sample_rate) : ''}
          placeholder="16000" onChange={(v) => set({ sample_rate: optionalNumber(v) })} />
      )}
    </fieldset>
  );
}

function OutputRow({ entry, onChange, disabled }: { entry: SpecOutput; onChange: (e: SpecOutput) => void; disabled: boolean }) {
  const set = (patch: Partial<SpecOutput>) => onChange({ ...entry, ...patch });
  const id = (field: string) => `spec-output-${entry.name}-${field}`;
  const kind = entry.kind ?? 'tensor';
  return (
    <fieldset class="spec-entry" data-testid={`spec-output-${entry.name}`}>
      <legend class="mono">{entry.name}</legend>
      <Select label="Meaning" testid={id('kind')} disabled={disabled} value={kind} options={OUTPUT_KINDS} onChange={(k) => set({ kind: k })} />
      {['logits', 'probabilities', 'boxes', 'mask'].includes(kind) && (
        <>
          <label class="spec-field spec-wide">
            <span>Labels</span>
            <textarea class="input mono" rows={3} data-testid={id('labels')} disabled={disabled} placeholder="one per line"
              value={(entry.labels ?? []).join('\n')}
              onInput={(e) => {
                const lines = (e.target as HTMLTextAreaElement).value.split('\n');
                set({ labels: lines.some((l) => l.trim()) ? lines.map((l) => l.trim()).filter(Boolean) : undefined });
              }} />
          </label>
          <Text label="or labels file" testid={id('labels-file')} disabled={disabled} value={entry.labels_file ?? ''} placeholder="labels.txt (beside the model)"
            onChange={(v) => set({ labels_file: v.trim() || undefined })} />
        </>
      )}
      {kind === 'text' && (
        <Text label="Characters" testid={id('characters')} disabled={disabled} value={entry.characters ?? ''} placeholder="0123456789abc… (index 0 is the blank)"
          onChange={(v) => set({ characters: v || undefined })} />
      )}
      {(kind === 'boxes' || kind === 'mask') && (
        <Text label="Threshold" testid={id('threshold')} disabled={disabled} value={entry.threshold === undefined ? '' : String(entry.threshold)}
          placeholder={kind === 'boxes' ? '0.25' : '0.5'} onChange={(v) => set({ threshold: optionalNumber(v) })} />
      )}
    </fieldset>
  );
}

export function SpecCard({ path, onSaved }: Props) {
  const [info, setInfo] = useState<ModelSpecInfo | null>(null);
  const [spec, setSpec] = useState<SpecBody | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [dirty, setDirty] = useState(false);
  useEffect(() => {
    getModelSpec(pid(), path).then((found) => {
      setInfo(found);
      setSpec(found.spec);
      onSaved?.(found);
    }, (err) => setError(errorMessage(err)));
  }, [path]);
  if (!spec || !info) return <div class="model-card muted" data-testid="spec-card">{error ?? 'Reading the spec…'}</div>;
  const readOnly = isViewer.value;
  const change = (next: SpecBody) => {
    setSpec(next);
    setDirty(true);
  };
  const save = async () => {
    setSaving(true);
    setError(null);
    try {
      const saved = await putModelSpec(pid(), path, spec);
      setInfo(saved);
      setSpec(saved.spec);
      setDirty(false);
      onSaved?.(saved);
    } catch (err) {
      const where = err instanceof ApiError && typeof err.body.where === 'string' ? ` (${err.body.where})` : '';
      setError(errorMessage(err) + where);
    } finally {
      setSaving(false);
    }
  };
  return (
    <form class="model-card spec-card" data-testid="spec-card" data-exists={String(info.exists)}
      onSubmit={(e) => { e.preventDefault(); void save(); }}>
      <div class="spec-head">
        <strong>Spec</strong>
        <span class="mono muted">{info.spec_path}</span>
        {!info.exists && <span class="spec-badge" data-testid="spec-draft">draft from the model file — not saved</span>}
        {dirty && <span class="spec-badge">unsaved</span>}
      </div>
      <div class="spec-section">Inputs</div>
      {spec.inputs.map((entry, index) => (
        <InputRow key={entry.name} entry={entry} index={index} disabled={readOnly}
          onChange={(e) => change({ ...spec, inputs: spec.inputs.map((old, i) => (i === index ? e : old)) })} />
      ))}
      <div class="spec-section">Outputs</div>
      {spec.outputs.map((entry, index) => (
        <OutputRow key={entry.name} entry={entry} disabled={readOnly}
          onChange={(e) => change({ ...spec, outputs: spec.outputs.map((old, i) => (i === index ? e : old)) })} />
      ))}
      {error && <div class="form-error" role="alert" data-testid="spec-error">{error}</div>}
      {!readOnly && (
        <div class="spec-actions">
          <button class="btn btn-small btn-primary" type="submit" data-testid="spec-save" disabled={saving || (info.exists && !dirty)}>
            {saving ? 'Saving…' : info.exists ? 'Save spec' : 'Create spec'}
          </button>
        </div>
      )}
    </form>
  );
}
