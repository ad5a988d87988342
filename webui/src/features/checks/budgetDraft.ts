// The budgets a caller hands the budgets form (openBudgets.tsx), kept apart from the form and its
// opener so neither imports the other.
import { signal } from '@preact/signals';
import type { Budget } from '../../api/checks';

/** Budgets the form adds to its rows once, unsaved; taken (set back to null) by the form. */
export const budgetDraft = signal<Budget[] | null>(null);
