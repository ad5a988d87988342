// Where the datasets view and the Evaluate panels open: the main area, one Evaluate panel per
// dataset (reused), beside the tool panels.
import { errorMessage } from '../../api/client';
import { listDatasets, type DatasetSummary } from '../../api/datasets';
import { notify } from '../../ui/toast';
import { baseName } from '../modeltools/open';
import { pid } from '../../kernel/session';
import { mainGroup } from '../../kernel/areas';
import type { EvaluateParams } from '../../kernel/openers';
import { dock, showPanel } from '../../kernel/panels';

export const DATASETS_PANEL = 'datasets';
export const EVALUATE_PANEL = 'evaluate';

export type { EvaluateParams };

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

/** "Evaluate…" on a model file: its Evaluate panel on the project's first dataset (the form
 * offers the others), the model checked as the baseline. */
export async function evaluateModel(model: string): Promise<void> {
  let found: DatasetSummary[];
  try {
    found = await listDatasets(pid());
  } catch (err) {
    notify(`Could not list the project's datasets: ${errorMessage(err)}`);
    return;
  }
  const usable = found.filter((d) => !d.error);
  if (!usable.length) {
    notify('The project has no dataset to evaluate on: a folder of class sub-folders, a COCO JSON or a CSV (see Datasets).');
    openDatasets();
    return;
  }
  openEvaluate({ dataset: usable[0].path, models: [model] });
}
