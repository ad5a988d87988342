// Input shapes of a model with dynamic dims (docs/model-tools.md, "Input shapes"): which inputs
// need one, from the model's newest Inspect run or the server's refusal naming it, and the last
// shape the project's runs used on that model. Kept in the form as `shape:<input>` = "1,3,640,640".
import type { ToolRun } from '../../api/tools';
import type { FormValues } from './fields';

export const SHAPE_PREFIX = 'shape:';
const isOpen = (d: unknown): boolean => typeof d !== 'number' || d <= 0;

/** Inputs with a dynamic dim, by the model's newest Inspect: name → declared dims ("1,3,?,?"). */
export function dynamicInputs(runs: ToolRun[], model: string): Record<string, string> {
  const inspected = runs.find((r) => r.tool === 'inspect' && r.status === 'succeeded' && r.args.model === model);
  const inputs = (inspected?.result?.inputs ?? []) as { name: string; shape: unknown[] }[];
  return Object.fromEntries(inputs.filter((i) => i.shape.some(isOpen)).map((i) => [i.name, i.shape.map((d) => (isOpen(d) ? '?' : String(d))).join(',')]));
}

/** The newest shape each input was given by a run of the project on this model. */
export function lastShapes(runs: ToolRun[], model: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const run of runs) {
    if (run.args.model !== model && run.args.a !== model) continue;
    for (const [name, dims] of Object.entries((run.args.input_shapes ?? {}) as Record<string, number[]>)) found[name] ??= dims.join(',');
  }
  return found;
}

/** `input_shapes` for the request body from the form's shape fields (empty ones left out). */
export function shapesOf(values: FormValues): Record<string, number[]> | undefined {
  const shapes: Record<string, number[]> = {};
  for (const [key, raw] of Object.entries(values)) {
    const text = String(raw).trim();
    if (key.startsWith(SHAPE_PREFIX) && text) shapes[key.slice(SHAPE_PREFIX.length)] = text.split(/[\s,x×]+/).filter(Boolean).map(Number);
  }
  return Object.keys(shapes).length ? shapes : undefined;
}

/** A run's `input_shapes` as the form's shape fields. */
export function shapeValues(args: Record<string, unknown>): FormValues {
  const shapes = (args.input_shapes ?? {}) as Record<string, number[]>;
  return Object.fromEntries(Object.entries(shapes).map(([name, dims]) => [SHAPE_PREFIX + name, dims.join(',')]));
}
