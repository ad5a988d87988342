// The model tools in the file tree's context menu, for model files only.
import type { FileEntry } from '../../api/types';
import type { MenuItem } from '../../ui/contextMenu';
import { openGraph, openTool } from './open';

const MODEL_EXTENSIONS = ['.onnx', '.tflite', '.pb', '.caffemodel', '.prototxt', '.mnn'];

export const isModelFile = (path: string): boolean => MODEL_EXTENSIONS.some((ext) => path.toLowerCase().endsWith(ext));
const isMnn = (path: string): boolean => path.toLowerCase().endsWith('.mnn');

/** The `.mnn` a tool works on: the file itself, or where Convert puts it by default. */
export const mnnFor = (path: string): string => (isMnn(path) ? path : `${path.replace(/\.[^./]+$/, '')}.mnn`);

export function modelMenuItems(entry: FileEntry): MenuItem[] {
  if (entry.type !== 'file' || !isModelFile(entry.path)) return [];
  const path = entry.path;
  // Compare runs an .mnn against a reference: from a source model, that model is the reference.
  const compare = isMnn(path) ? { model: path } : { model: mnnFor(path), reference: path };
  return [
    { label: 'Convert…', testid: 'menu-tool-convert', action: () => openTool({ tool: 'convert', model: path }) },
    { label: 'Quantize…', testid: 'menu-tool-quantize', action: () => openTool({ tool: 'quantize', model: mnnFor(path) }) },
    { label: 'Inspect', testid: 'menu-tool-inspect', action: () => openTool({ tool: 'inspect', model: path, autorun: true }) },
    { label: 'Compare…', testid: 'menu-tool-compare', action: () => openTool({ tool: 'compare', ...compare }) },
    { label: 'Benchmark…', testid: 'menu-tool-benchmark', action: () => openTool({ tool: 'benchmark', model: mnnFor(path) }) },
    { label: 'Open graph', testid: 'menu-tool-graph', action: () => openGraph(path) },
  ];
}
