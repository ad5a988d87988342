// A commit's stored check result in the history: ✓ or ✗, the failures in its tooltip.
import type { CheckResult } from '../../api/checks';
import { byCommit } from './store';

/** What a result measured: a model, or a pipeline and (for a stage's limit) the stage. */
export const checkedName = (r: CheckResult): string => (r.stage ? `${r.model} › ${r.stage}` : r.model);

export function CheckBadge({ sha }: { sha: string }) {
  const check = byCommit.value.get(sha);
  if (!check) return null;
  const failures = check.failures.map((f) => `${checkedName(f)} ${f.metric} ${f.value ?? '—'} (limit ${f.limit})`).join('\n');
  return (
    <span class={check.passed ? 'check-badge check-pass' : 'check-badge check-fail'} data-testid="check-badge"
      data-passed={String(check.passed)} title={check.passed ? 'Budgets passed' : `Budgets failed:\n${failures}`}>
      {check.passed ? '✓' : '✗'}
    </span>
  );
}
