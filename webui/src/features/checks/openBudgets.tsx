// The budgets form is a tab in the main area; its code loads the first time it is shown.
import { mainGroup } from '../workbench/areas';
import { lazyPanel } from '../workbench/lazyPanel';
import { dock, registerPanel, showPanel } from '../workbench/panels';

export const BUDGETS_PANEL = 'budgets';

export function registerBudgetsEditor(): void {
  const form = lazyPanel(() => import('./BudgetsEditor').then((m) => () => <m.BudgetsEditor />));
  registerPanel(BUDGETS_PANEL, form, { area: 'main' });
}

export function openBudgetsEditor(): void {
  showPanel({
    id: BUDGETS_PANEL, component: BUDGETS_PANEL, title: 'Budgets',
    position: dock().getPanel(BUDGETS_PANEL) ? undefined : { referenceGroup: mainGroup() },
  });
}
