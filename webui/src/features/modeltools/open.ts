// Where the model tools open: each run form is its own dock panel in the editor area (a second
// one of the same tool lands beside the first, to compare), or a new browser tab on request.
import type { AddPanelPositionOptions } from 'dockview';
import { rawUrl } from '../../api/files';
import { FILES_PANEL } from '../editor/openEditor';
import { SCM_PANEL } from '../git/open';
import type { ToolName } from '../../api/tools';
import { dock, showPanel } from '../workbench/panels';
import { pid } from '../workbench/session';

export const TOOL_PANEL = 'model-tool';
export const RUNS_PANEL = 'tool-runs';

export const TOOL_TITLES: Record<ToolName, string> = {
  convert: 'Convert',
  quantize: 'Quantize',
  inspect: 'Inspect',
  compare: 'Compare',
  benchmark: 'Benchmark',
};
const TOOLS = Object.keys(TOOL_TITLES) as ToolName[];
const SIDE_PANELS = new Set([FILES_PANEL, SCM_PANEL]);

export interface ToolPanelParams {
  tool: ToolName;
  model: string;
  /** Compare's reference model, when the menu knows it. */
  reference?: string;
  /** The run shown; a new run replaces it. */
  runId?: string;
  /** Start a run with the default arguments as soon as the panel opens (Inspect). */
  autorun?: boolean;
}

export const baseName = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

function toolPanels(tool?: ToolName) {
  return dock().panels.filter((p) => p.id.startsWith('tool:') && (!tool || p.params?.tool === tool));
}

const isWorkPanel = (id: string): boolean => id.startsWith('editor:') || id.startsWith('tool:') || id === RUNS_PANEL;

// Tools whose results are read against each other (fp32 vs int8 latency, two models' I/O).
const SIDE_BY_SIDE: ReadonlySet<ToolName> = new Set(['benchmark', 'compare', 'inspect']);

/** A second panel of such a tool goes beside the first; more, and other tools, are tabs. */
function position(tool: ToolName): AddPanelPositionOptions | undefined {
  const twins = toolPanels(tool);
  const last = twins.at(-1);
  if (!last || !SIDE_BY_SIDE.has(tool)) return areaPosition();
  const columns = new Set(twins.map((p) => p.group.id)).size;
  return columns < 2 ? { referencePanel: last.id, direction: 'right' } : { referencePanel: last.id };
}

function areaPosition(): AddPanelPositionOptions | undefined {
  const api = dock();
  const active = api.activePanel;
  if (active && isWorkPanel(active.id)) return { referencePanel: active.id };
  // Otherwise the editor area: a group holding editors or tools, or one without side panels
  // (the file tree, source control), which stay narrow on the left.
  const work = api.groups.find((g) => g.panels.some((p) => isWorkPanel(p.id)));
  const area = work ?? api.groups.find((g) => g.panels.every((p) => !SIDE_PANELS.has(p.id)));
  if (area) return { referenceGroup: area };
  return api.getPanel(FILES_PANEL) ? { referencePanel: FILES_PANEL, direction: 'right' } : undefined;
}

export function openTool(params: ToolPanelParams): void {
  const id = `tool:${params.tool}:${crypto.randomUUID().slice(0, 8)}`;
  showPanel({
    id,
    component: TOOL_PANEL,
    title: `${TOOL_TITLES[params.tool]} · ${baseName(params.model)}`,
    params: { ...params },
    position: position(params.tool),
  });
}

export function openRuns(): void {
  showPanel({
    id: RUNS_PANEL,
    component: RUNS_PANEL,
    title: 'Tool runs',
    position: dock().getPanel(RUNS_PANEL) ? undefined : areaPosition(),
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

/** Netron, served by our server, fetching the model from the raw file route (same origin). */
export function openGraph(path: string): void {
  const query = new URLSearchParams({ url: rawUrl(pid(), path), identifier: baseName(path) });
  window.open(`/netron/?${query}`, '_blank', 'noopener');
}

const isTool = (value: string | null): value is ToolName => TOOLS.includes(value as ToolName);

/** `/p/{pid}?tool=…&model=…[&run=…]` opens that tool once the dock is up, then tidies the URL. */
export function openFromQuery(): void {
  const query = new URLSearchParams(location.search);
  const tool = query.get('tool');
  const model = query.get('model');
  if (!isTool(tool) || !model) return;
  const runId = query.get('run') ?? undefined;
  whenDockReady(() => {
    // The restored layout may hold that run already (the layout is the project's, not the tab's).
    const shown = runId && toolPanels(tool).find((p) => p.params?.runId === runId);
    if (shown) shown.api.setActive();
    else openTool({ tool, model, runId, autorun: tool === 'inspect' && !runId });
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
