// The budgets form is a tab in the main area; its code loads the first time it is shown. A
// caller may hand it budgets to start from (the flow's template): the form shows them, unsaved.
import type { Budget } from '../../api/checks';
import { mainGroup } from '../../kernel/areas';
import { budgetDraft } from './budgetDraft';
import { lazyPanel } from '../../kernel/lazyPanel';
import { dock, registerPanel, showPanel } from '../../kernel/panels';
import { registerOpener } from '../../kernel/openers';

export const BUDGETS_PANEL = 'budgets';

export function registerBudgetsEditor(): void {
  registerOpener('budgetsEditor', openBudgetsEditor);
  const form = lazyPanel(() => import('./BudgetsEditor').then((m) => () => <m.BudgetsEditor />));
  registerPanel(BUDGETS_PANEL, form, { area: 'main' });
}

export function openBudgetsEditor(draft: Budget[] | null = null): void {
  budgetDraft.value = draft && draft.length ? draft : null;
  showPanel({
    id: BUDGETS_PANEL, component: BUDGETS_PANEL, title: 'Budgets',
    position: dock().getPanel(BUDGETS_PANEL) ? undefined : { referenceGroup: mainGroup() },
  });
}
