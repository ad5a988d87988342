// Where a lineage graph opens (one panel per file, in the main area), and where its nodes lead:
// a job to the Training panel, a commit to its files in the History, a tool run to its tool's
// panel.
import type { LineageNode } from '../../api/lineage';
import type { ToolName } from '../../api/tools';
import { opener } from '../../kernel/openers';
import { baseName, openTool, TOOL_TITLES } from '../modeltools/open';
import { mainGroup } from '../../kernel/areas';
import { dock, showPanel } from '../../kernel/panels';

export const LINEAGE_PANEL = 'lineage';

export function openLineage(path: string): void {
  const id = `lineage:${path}`;
  showPanel({
    id,
    component: LINEAGE_PANEL,
    title: `Lineage · ${baseName(path)}`,
    params: { path },
    position: dock().getPanel(id) ? undefined : { referenceGroup: mainGroup() },
  });
}

const isTool = (tool: unknown): tool is ToolName => typeof tool === 'string' && tool in TOOL_TITLES;

/** Opens what a node stands for, inside this project; files and unknown tools only select. */
export function openNode(node: LineageNode): void {
  const data = node.data;
  if (node.kind === 'job' && typeof data.job_id === 'string') {
    opener('trainingJob')(data.job_id);
  } else if (node.kind === 'commit' && typeof data.sha === 'string') {
    opener('commit')(data.sha);
  } else if (node.kind === 'run' && data.tool === 'evaluate') {
    const args = (data.args ?? {}) as Record<string, unknown>;
    opener('evaluate')({ dataset: String(args.dataset ?? ''), runId: node.id.slice(node.id.indexOf(':') + 1) });
  } else if ((node.kind === 'tool_run' || node.kind === 'run') && isTool(data.tool)) {
    const args = (data.args ?? {}) as Record<string, unknown>;
    openTool({ tool: data.tool, model: String(args.model ?? ''), runId: node.id.slice(node.id.indexOf(':') + 1) });
  }
}
