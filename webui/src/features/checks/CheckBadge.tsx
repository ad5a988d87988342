// A commit's stored check result in the history: ✓ or ✗, the failures in its tooltip.
import { byCommit } from './store';

export function CheckBadge({ sha }: { sha: string }) {
  const check = byCommit.value.get(sha);
  if (!check) return null;
  const failures = check.failures.map((f) => `${f.model} ${f.metric} ${f.value ?? '—'} (limit ${f.limit})`).join('\n');
  return (
    <span class={check.passed ? 'check-badge check-pass' : 'check-badge check-fail'} data-testid="check-badge"
      data-passed={String(check.passed)} title={check.passed ? 'Budgets passed' : `Budgets failed:\n${failures}`}>
      {check.passed ? '✓' : '✗'}
    </span>
  );
}
