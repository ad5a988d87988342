// Each tool's form as data: fields with their defaults, turned into the request body of a run.
// Defaults match the server's (server/modeltools/schemas.py) so an untouched form asks for them.
import type { ToolName } from '../../api/tools';

export type FieldKind = 'bool' | 'int' | 'float' | 'select' | 'text' | 'floats' | 'list' | 'folder' | 'model' | 'backend';
export type FieldValue = string | boolean;
export type FormValues = Record<string, FieldValue>;

export interface Field {
  key: string;
  label: string;
  kind: FieldKind;
  initial: FieldValue;
  options?: [value: string, label: string][];
  placeholder?: string;
  hint?: string;
  /** Shown in a collapsed "More options" section. */
  advanced?: boolean;
  /** For model pickers: the file endings offered. */
  accept?: string[];
}

const MNN = ['.mnn'];
const SOURCES = ['.onnx', '.tflite', '.pb', '.caffemodel', '.prototxt'];
const modelField = (accept: string[]): Field => ({ key: 'model', label: 'Model', kind: 'model', initial: '', accept });
const MODEL = modelField(MNN);
const OUTPUT: Field = { key: 'output', label: 'Output', kind: 'text', initial: '', placeholder: 'next to the model (default name)', advanced: true };

const CONVERT: Field[] = [
  modelField(SOURCES),
  { key: 'fp16', label: 'Store weights as fp16', kind: 'bool', initial: false },
  { key: 'weight_quant_bits', label: 'Weight quantization', kind: 'select', initial: '0', options: [['0', 'Off'], ['8', '8 bit'], ['4', '4 bit']] },
  { key: 'weight_quant_block', label: 'Block size', kind: 'int', initial: '0', hint: '0 = per channel' },
  { key: 'weight_quant_asymmetric', label: 'Asymmetric', kind: 'bool', initial: false },
  { key: 'optimize_level', label: 'Optimize level', kind: 'select', initial: '1', options: [['0', '0 — none'], ['1', '1 — safe'], ['2', '2 — aggressive']] },
  { key: 'static', label: 'Static model (fixed input shapes)', kind: 'bool', initial: false, advanced: true },
  { key: 'batch', label: 'Batch', kind: 'int', initial: '', placeholder: 'keep', advanced: true },
  { key: 'biz_code', label: 'bizCode', kind: 'text', initial: 'MNN', advanced: true },
  OUTPUT,
];

// Where MNN runs the model: the backends offered are the server's (BackendSelect.tsx).
const BACKEND: Field = { key: 'backend', label: 'Backend', kind: 'backend', initial: 'CPU' };
const THREADS: Field = { key: 'threads', label: 'Threads', kind: 'int', initial: '1', hint: 'CPU' };
const PRECISION: Field = { key: 'precision', label: 'Precision', kind: 'select', initial: 'normal', options: [['normal', 'normal'], ['high', 'high'], ['low', 'low (fp16)'], ['low_bf16', 'low (bf16)']] };
const POWER: Field = { key: 'power', label: 'Power', kind: 'select', initial: 'normal', options: [['normal', 'normal'], ['high', 'high'], ['low', 'low']] };
const advanced = (field: Field): Field => ({ ...field, advanced: true });

const QUANTIZE: Field[] = [
  MODEL,
  { key: 'calibration', label: 'Calibration folder', kind: 'folder', initial: '' },
  // an image dataset (docs/datasets.md): its train split calibrates when no folder is given, and
  // the float and int8 models are evaluated on its val split after
  { key: 'dataset', label: 'Dataset', kind: 'folder', initial: '', hint: 'calibrates; int8 drop on val' },
  { key: 'input_type', label: 'Samples', kind: 'select', initial: 'image', options: [['image', 'Images'], ['sequence', '.npy / .txt sequences']] },
  { key: 'format', label: 'Format', kind: 'select', initial: 'RGB', options: [['RGB', 'RGB'], ['BGR', 'BGR'], ['RGBA', 'RGBA'], ['GRAY', 'GRAY']] },
  { key: 'mean', label: 'Mean', kind: 'floats', initial: '127.5, 127.5, 127.5' },
  { key: 'normal', label: 'Normal (scale)', kind: 'floats', initial: '0.00784314, 0.00784314, 0.00784314' },
  { key: 'width', label: 'Width', kind: 'int', initial: '', placeholder: 'model' },
  { key: 'height', label: 'Height', kind: 'int', initial: '', placeholder: 'model' },
  { key: 'center_crop_w', label: 'Crop width', kind: 'float', initial: '', placeholder: '0–1', advanced: true },
  { key: 'center_crop_h', label: 'Crop height', kind: 'float', initial: '', placeholder: '0–1', advanced: true },
  // ADMM feature calibration crashes MNN 3.6.1's quantizer: it is not offered.
  { key: 'feature_method', label: 'Feature method', kind: 'select', initial: 'KL', options: [['KL', 'KL'], ['EMA', 'EMA']] },
  { key: 'weight_method', label: 'Weight method', kind: 'select', initial: 'MAX_ABS', options: [['MAX_ABS', 'MAX_ABS'], ['ADMM', 'ADMM']] },
  { key: 'max_samples', label: 'Max samples', kind: 'int', initial: '', placeholder: 'all', advanced: true },
  { key: 'skip_ops', label: 'Skip ops (kept in float)', kind: 'list', initial: '', placeholder: 'op names, comma separated', advanced: true },
  // where the int8 model's speed is checked against the float model's
  { ...BACKEND, label: 'Speed check on', advanced: true },
  advanced(THREADS),
  OUTPUT,
];

const COMPARE: Field[] = [
  MODEL,
  { key: 'reference', label: 'Reference (.onnx or .mnn)', kind: 'model', initial: '', accept: ['.onnx', '.mnn'] },
  { key: 'threshold', label: 'Threshold (relative error)', kind: 'float', initial: '0.01' },
  { key: 'seed', label: 'Seed', kind: 'int', initial: '0' },
  { key: 'per_layer', label: 'Per-layer errors', kind: 'bool', initial: true },
  BACKEND,
  advanced(THREADS),
  advanced(PRECISION),
  advanced(POWER),
];

const BENCHMARK: Field[] = [
  MODEL,
  BACKEND,
  THREADS,
  PRECISION,
  { key: 'memory', label: 'Memory', kind: 'select', initial: 'normal', options: [['normal', 'normal'], ['high', 'high'], ['low', 'low']] },
  advanced(POWER),
  { key: 'warmup', label: 'Warm-up runs', kind: 'int', initial: '10' },
  { key: 'loops', label: 'Timed runs', kind: 'int', initial: '50' },
  { key: 'per_op', label: 'Per-op profile', kind: 'bool', initial: true },
  { key: 'per_op_loops', label: 'Profiled runs', kind: 'int', initial: '20', advanced: true },
];

export const FIELDS: Record<ToolName, Field[]> = {
  convert: CONVERT,
  quantize: QUANTIZE,
  inspect: [modelField([...MNN, ...SOURCES])],
  compare: COMPARE,
  benchmark: BENCHMARK,
};

export function initialValues(tool: ToolName, preset: Record<string, unknown> = {}): FormValues {
  const values: FormValues = {};
  for (const field of FIELDS[tool]) {
    const given = preset[field.key];
    if (given === undefined || given === null) values[field.key] = field.initial;
    else if (field.kind === 'bool') values[field.key] = Boolean(given);
    else values[field.key] = Array.isArray(given) ? given.join(', ') : String(given);
  }
  return values;
}

function parse(field: Field, raw: FieldValue): unknown {
  if (field.kind === 'bool') return Boolean(raw);
  const text = String(raw).trim();
  if (text === '') return undefined;
  switch (field.kind) {
    case 'int':
    case 'float':
      return Number(text);
    case 'select':
      return /^\d+$/.test(text) ? Number(text) : text;
    case 'floats':
      return text.split(/[\s,]+/).filter(Boolean).map(Number);
    case 'list':
      return text.split(/[\s,]+/).filter(Boolean);
    default:
      return text;
  }
}

/** The request body: empty optional fields are left out so the server's defaults apply. */
export function buildArgs(tool: ToolName, values: FormValues): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const field of FIELDS[tool]) {
    const value = parse(field, values[field.key] ?? field.initial);
    if (value !== undefined) args[field.key] = value;
  }
  return args;
}
