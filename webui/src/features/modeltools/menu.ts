// The model tools in the file tree's context menu, for model files only.
import type { FileEntry } from '../../api/types';
import type { MenuItem } from '../../ui/contextMenu';
import { promptDialog } from '../../ui/dialogs';
import { openModelDiff } from './diff/openDiff';
import { repoState, status as gitStatus } from '../../kernel/gitStore';
import { isViewer } from '../../kernel/account';
import { isModelFile } from '../../kernel/fileKinds';
import { session } from '../../kernel/session';
import { opener } from '../../kernel/openers';
import { openGraph, openPipeline, openTool } from './open';

export { isModelFile };
const isMnn = (path: string): boolean => path.toLowerCase().endsWith('.mnn');
// The models evaluate runs: MNN, and the sources it has a reference runtime for.
const isEvaluated = (path: string): boolean => ['.mnn', '.onnx', '.tflite'].some((ext) => path.toLowerCase().endsWith(ext));

/** The `.mnn` a tool works on: the file itself, or where Convert puts it by default. */
export const mnnFor = (path: string): string => (isMnn(path) ? path : `${path.replace(/\.[^./]+$/, '')}.mnn`);

/** A pipeline file: a `.toml` named `pipeline.toml` or `*.pipeline.toml` (docs/pipelines.md). */
export const isPipelineFile = (path: string): boolean => /(^|\/|\.)pipeline\.toml$/i.test(path);

export function modelMenuItems(entry: FileEntry): MenuItem[] {
  if (entry.type === 'file' && isPipelineFile(entry.path) && !isViewer.value) {
    return [{ label: 'Run pipeline…', testid: 'menu-run-pipeline', action: () => openPipeline(entry.path) }];
  }
  if (entry.type !== 'file' || !isModelFile(entry.path)) return [];
  const path = entry.path;
  // Compare runs an .mnn against a reference: from a source model, that model is the reference.
  const compare = isMnn(path) ? { model: path } : { model: mnnFor(path), reference: path };
  const graph: MenuItem = { label: 'Open graph', testid: 'menu-tool-graph', action: () => openGraph(path) };
  // Viewers may look, not run: the tools write models and use the project's workers.
  if (isViewer.value) return [graph];
  return [
    { label: 'Convert…', testid: 'menu-tool-convert', action: () => openTool({ tool: 'convert', model: path }) },
    { label: 'Quantize…', testid: 'menu-tool-quantize', action: () => openTool({ tool: 'quantize', model: mnnFor(path) }) },
    { label: 'Inspect', testid: 'menu-tool-inspect', action: () => openTool({ tool: 'inspect', model: path, autorun: true }) },
    { label: 'Compare…', testid: 'menu-tool-compare', action: () => openTool({ tool: 'compare', ...compare }) },
    { label: 'Benchmark…', testid: 'menu-tool-benchmark', action: () => openTool({ tool: 'benchmark', model: mnnFor(path) }) },
    ...(isEvaluated(path) ? [{ label: 'Evaluate…', testid: 'menu-tool-evaluate', action: () => void opener('evaluateModel')(path) }] : []),
    { label: 'Open graph', testid: 'menu-tool-graph', action: () => openGraph(path) },
    ...(isMnn(path) ? diffItems(path) : []),
  ];
}

function diffItems(path: string): MenuItem[] {
  const withOther = async () => {
    const other = await promptDialog('Model diff', `Compare ${path} (A) with the model (B):`, mnnFor(path).replace(/\.mnn$/, '.int8.mnn'), 'Diff');
    if (other) openModelDiff({ request: { a: path, b: other.trim() } });
  };
  // With HEAD only where there is one: a repository with a commit (as far as this tab knows).
  const known = gitStatus.value;
  const hasHead = session().hasGit && repoState.value !== 'none' && (known === null || known.head !== null);
  return [
    ...(hasHead ? [{ label: 'Model diff with HEAD', testid: 'menu-diff-head', action: () => openModelDiff({ request: { a: path, rev_a: 'HEAD' } }) }] : []),
    { label: 'Model diff with…', testid: 'menu-diff-with', action: () => void withOther() },
  ];
}
