// Where the model tools open: one dock panel per (tool, model), reused, all in one group of the
// main area, or a new browser tab on request.
import type { AddPanelPositionOptions } from 'dockview';
import { rawUrl } from '../../api/files';
import type { ToolName } from '../../api/tools';
import { mainGroup } from '../../kernel/areas';
import { dock, showPanel } from '../../kernel/panels';
import { pid } from '../../kernel/session';

export const TOOL_PANEL = 'model-tool';
export const RUNS_PANEL = 'tool-runs';
export const PIPELINE_PANEL = 'pipeline';

export const TOOL_TITLES: Record<ToolName, string> = {
  convert: 'Convert',
  quantize: 'Quantize',
  inspect: 'Inspect',
  compare: 'Compare',
  benchmark: 'Benchmark',
};
const TOOLS = Object.keys(TOOL_TITLES) as ToolName[];

export interface ToolPanelParams {
  tool: ToolName;
  model: string;
  /** Compare's reference model, when the menu knows it. */
  reference?: string;
  /** The run shown; a new run replaces it. */
  runId?: string;
  /** The form as last edited, kept across reloads. */
  values?: Record<string, string | boolean>;
  /** Start a run with the default arguments as soon as the panel opens (Inspect). */
  autorun?: boolean;
}

export const baseName = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

function toolPanels(tool?: ToolName) {
  return dock().panels.filter((p) => p.id.startsWith('tool:') && (!tool || p.params?.tool === tool));
}

/** The one panel of a tool on a model, when it is open. */
const panelFor = (tool: ToolName, model: string) => toolPanels(tool).find((p) => p.params?.model === model);

/** Tool panels share one group, in the main area; they never split the editor area themselves. */
function toolGroupPosition(): AddPanelPositionOptions {
  const sibling = toolPanels()[0] ?? dock().getPanel(RUNS_PANEL);
  return sibling ? { referenceGroup: sibling.group } : { referenceGroup: mainGroup() };
}

/** Shows the panel of (tool, model), reusing it when open; its new runs join its history. */
export function openTool(params: ToolPanelParams): void {
  const open = panelFor(params.tool, params.model);
  if (open) {
    // The panel follows its parameters: a run picked elsewhere (the history) shows in it.
    if (params.runId) open.api.updateParameters({ runId: params.runId });
    open.api.setActive();
    return;
  }
  const id = `tool:${params.tool}:${params.model}`;
  showPanel({
    // A panel whose model was changed in its form may still hold the id.
    id: dock().getPanel(id) ? `${id}:${crypto.randomUUID().slice(0, 8)}` : id,
    component: TOOL_PANEL,
    title: `${TOOL_TITLES[params.tool]} · ${baseName(params.model)}`,
    params: { ...params },
    position: toolGroupPosition(),
  });
}

/** The run panel of a pipeline file (docs/pipelines.md), beside the tool panels. */
export function openPipeline(path: string): void {
  const id = `pipeline:${path}`;
  const open = dock().getPanel(id);
  if (open) return open.api.setActive();
  showPanel({ id, component: PIPELINE_PANEL, title: `Pipeline · ${baseName(path)}`, params: { path }, position: toolGroupPosition() });
}

export function openRuns(): void {
  showPanel({
    id: RUNS_PANEL,
    component: RUNS_PANEL,
    title: 'Tool runs',
    position: dock().getPanel(RUNS_PANEL) ? undefined : toolGroupPosition(),
  });
}

/** The project page in a new browser tab, opening this tool (and run) on load. */
export function toolPageUrl(params: ToolPanelParams): string {
  const query = new URLSearchParams({ tool: params.tool, model: params.model });
  if (params.runId) query.set('run', params.runId);
  return `/p/${encodeURIComponent(pid())}?${query}`;
}

export function openInNewTab(params: ToolPanelParams): void {
  window.open(toolPageUrl(params), '_blank', 'noopener');
}

/** Netron, served by our server, fetching the model from the raw file route (same origin);
 * with ``select``, the node that outputs that tensor is selected once the graph shows. */
export function openGraph(path: string, select?: string): void {
  const query = new URLSearchParams({ url: rawUrl(pid(), path), identifier: baseName(path) });
  if (select) query.set('select', select);
  window.open(`/netron/?${query}`, '_blank', 'noopener');
}

export const isTool = (value: string | null): value is ToolName => TOOLS.includes(value as ToolName);

/** `/p/{pid}?tool=…&model=…[&run=…]` opens that tool once the dock is up, then tidies the URL. */
export function openFromQuery(): void {
  const query = new URLSearchParams(location.search);
  const tool = query.get('tool');
  const model = query.get('model');
  if (!isTool(tool) || !model) return;
  const runId = query.get('run') ?? undefined;
  whenDockReady(() => {
    // The restored layout may hold that panel already (the layout is the project's, not the tab's).
    openTool({ tool, model, runId, autorun: tool === 'inspect' && !runId });
    history.replaceState(history.state, '', location.pathname);
  });
}

const DOCK_WAIT_MS = 50;
const DOCK_WAIT_TRIES = 400;

function whenDockReady(then: () => void, tries = DOCK_WAIT_TRIES): void {
  try {
    dock();
  } catch {
    if (tries > 0) window.setTimeout(() => whenDockReady(then, tries - 1), DOCK_WAIT_MS);
    return;
  }
  then();
}
