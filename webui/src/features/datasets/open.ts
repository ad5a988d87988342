// Where the datasets view and the Evaluate panels open: the main area, one Evaluate panel per
// dataset (reused), beside the tool panels.
import { baseName } from '../modeltools/open';
import { mainGroup } from '../workbench/areas';
import { dock, showPanel } from '../workbench/panels';

export const DATASETS_PANEL = 'datasets';
export const EVALUATE_PANEL = 'evaluate';

export interface EvaluateParams {
  dataset: string;
  /** The models to check in the form when it first shows. */
  models?: string[];
  /** The run shown; a new run replaces it. */
  runId?: string;
}

export function openDatasets(): void {
  showPanel({
    id: DATASETS_PANEL,
    component: DATASETS_PANEL,
    title: 'Datasets',
    position: dock().getPanel(DATASETS_PANEL) ? undefined : { referenceGroup: mainGroup() },
  });
}

export function openEvaluate(params: EvaluateParams): void {
  const id = `evaluate:${params.dataset}`;
  const open = dock().getPanel(id);
  if (open) {
    open.api.updateParameters({ ...params });
    open.api.setActive();
    return;
  }
  showPanel({
    id,
    component: EVALUATE_PANEL,
    title: `Evaluate · ${baseName(params.dataset) || params.dataset}`,
    params: { ...params },
    position: { referenceGroup: mainGroup() },
  });
}
