// What an on-device benchmark or tensor watch feeds the model: per input, the shape to run at
// (asked for each dynamic input, pre-filled from the model's spec) and optionally a project file
// (an image or .wav preprocessed by the spec, or a .npy). Empty: the spec's default shape and
// random values. The device refuses a dynamic dim nobody gave (docs/model-spec.md).
import { signal } from '@preact/signals';
import { useEffect, useState } from 'preact/hooks';
import type { DeclaredTensor } from '../../api/tools';
import { getModelSpec } from '../../api/tools';
import { pid } from '../../kernel/session';

export interface DeviceFeeds {
  inputs: Record<string, { file: string }>;
  input_shapes: Record<string, number[]>;
}

interface Typed {
  shape: string;
  file: string;
}

// model → input → what was typed, kept while the panel is closed
const typed = signal<Record<string, Record<string, Typed>>>({});

const isOpen = (d: number) => d <= 0;
const dims = (text: string) => text.split(/[\s,x×]+/).filter(Boolean).map(Number);

/** The request's `inputs` and `input_shapes` from what was typed for ``model``. */
export function feedsOf(model: string): DeviceFeeds {
  const feeds: DeviceFeeds = { inputs: {}, input_shapes: {} };
  for (const [name, entry] of Object.entries(typed.value[model] ?? {})) {
    if (entry.shape.trim()) feeds.input_shapes[name] = dims(entry.shape);
    if (entry.file.trim()) feeds.inputs[name] = { file: entry.file.trim() };
  }
  return feeds;
}

function set(model: string, name: string, change: Partial<Typed>): void {
  const forModel = typed.value[model] ?? {};
  const entry: Typed = { ...(forModel[name] ?? { shape: '', file: '' }), ...change };
  typed.value = { ...typed.value, [model]: { ...forModel, [name]: entry } };
}

interface Inputs {
  model: string;
  declared: DeclaredTensor[];
  defaults: Record<string, number[]>;
  error: string;
}

/** The model's inputs: declared dims, and the spec's default shapes; null until read for it. */
function useInputs(model: string): Inputs | null {
  const [found, setFound] = useState<Inputs | null>(null);
  useEffect(() => {
    if (!model) return;
    let current = true;
    getModelSpec(pid(), model).then((info) => {
      const defaults = Object.fromEntries(info.spec.inputs.filter((i) => i.default_shape).map((i) => [i.name, i.default_shape!]));
      if (current) setFound({ model, declared: info.declared_inputs, defaults: info.exists ? defaults : {}, error: '' });
    }, (err: Error) => current && setFound({ model, declared: [], defaults: {}, error: err.message }));
    return () => {
      current = false;
    };
  }, [model]);
  return found?.model === model ? found : null; // never another model's inputs
}

interface Props {
  model: string;
  testid: string;
  /** The input a refusal of the last run named, marked for the eye. */
  refused?: string | null;
  disabled?: boolean;
}

export function DeviceInputs({ model, testid, refused, disabled }: Props) {
  const found = useInputs(model);
  const values = typed.value[model] ?? {};
  if (!model) return null;
  if (!found) return <div class="muted">Reading the inputs of {model}…</div>;
  const { declared, defaults, error } = found;
  if (error) return <div class="muted">{error}</div>;
  return (
    <div class="device-inputs" data-testid={testid} data-model={model}>
      {declared.map((input) => {
        const dynamic = input.shape.some(isOpen);
        const shown = input.shape.map((d) => (isOpen(d) ? '?' : String(d))).join('×');
        const fallback = defaults[input.name]?.join(',');
        return (
          <div key={input.name} class={`device-input${refused === input.name ? ' refused' : ''}`} data-input={input.name}>
            <span class="mono" title={`declared ${shown}`}>{input.name} <span class="muted">{shown}</span></span>
            {dynamic && (
              <input class="mono" data-testid={`${testid}-shape-${input.name}`} disabled={disabled} value={values[input.name]?.shape ?? ''}
                placeholder={fallback ? `${fallback} (the spec's default)` : 'shape, e.g. 1,3,640,640'}
                title="The shape to run at: a dynamic dim is never guessed"
                onInput={(ev) => set(model, input.name, { shape: ev.currentTarget.value })} />
            )}
            <input class="mono" data-testid={`${testid}-file-${input.name}`} disabled={disabled} value={values[input.name]?.file ?? ''}
              placeholder="random, or a file: photos/cat.jpg, x.npy"
              title="A project file fed to this input: an image or .wav is preprocessed by the model's spec"
              onInput={(ev) => set(model, input.name, { file: ev.currentTarget.value })} />
          </div>
        );
      })}
    </div>
  );
}

const source = (from?: string) => (!from ? '' : from === 'random' ? ' (random values)' : from.startsWith('fill ') ? ` (${from})` : ` from ${from}`);

/** "image 1×3×640×640 from photos/cat.jpg" for each input a run used. */
export function RanWith({ shapes, sources, testid }: { shapes?: Record<string, number[]> | null; sources?: Record<string, string> | null; testid: string }) {
  if (!shapes) return null;
  return (
    <span class="muted" data-testid={testid}>
      {Object.entries(shapes).map(([name, shape]) => `${name} ${shape.join('×')}${source(sources?.[name])}`).join(' · ')}
    </span>
  );
}
