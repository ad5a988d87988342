// Where a model diff opens: a dock panel in the tools' group, one per pair of sides (reused).
import type { DiffRequest } from '../../../api/checks';
import { mainGroup } from '../../../kernel/areas';
import type { ModelDiffParams } from '../../../kernel/openers';
import { dock, showPanel } from '../../../kernel/panels';

export const DIFF_PANEL = 'model-diff';

export type { ModelDiffParams };

const baseName = (path: string): string => path.slice(path.lastIndexOf('/') + 1);
const revName = (rev: string): string => (rev === ':0' ? 'index' : rev.slice(0, 10));
const side = (path: string, rev?: string | null): string => `${baseName(path)}${rev ? `@${revName(rev)}` : ''}`;

export function diffTitle(request: DiffRequest): string {
  return `Diff · ${side(request.a, request.rev_a)} ↔ ${side(request.b ?? request.a, request.rev_b)}`;
}

export function openModelDiff(params: ModelDiffParams): void {
  const request = params.request;
  const key = request ? `${request.a}@${request.rev_a ?? ''}..${request.b ?? request.a}@${request.rev_b ?? ''}` : params.runId;
  const sibling = dock().panels.find((p) => p.id.startsWith('tool:') || p.id.startsWith('diff:'));
  showPanel({
    id: `diff:${key}`,
    component: DIFF_PANEL,
    title: request ? diffTitle(request) : 'Model diff',
    params: { ...params },
    position: { referenceGroup: sibling ? sibling.group : mainGroup() },
  });
}
