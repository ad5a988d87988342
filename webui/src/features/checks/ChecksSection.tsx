// The budgets of mnnwb.toml in the Source Control panel: run them before a commit, see each
// limit against its measured value, and diff a failing model against the last passing commit.
import type { CheckResult } from '../../api/checks';
import { openBudgetsEditor } from './openBudgets';
import { opener } from '../../kernel/openers';
import { checkedName } from './CheckBadge';
import { checkError, report, runProjectChecks, running } from './store';
import './checks.css';
import { isViewer, viewerReason } from '../../kernel/account';

const CONFIG = 'mnnwb.toml';
const value = (v: number | null): string => (v === null ? '—' : Number(v.toPrecision(4)).toString());

function ResultRow({ result, lastPassing }: { result: CheckResult; lastPassing: string | null }) {
  const diffable = lastPassing && result.model.endsWith('.mnn'); // a pipeline is no model to diff
  return (
    <>
      <tr data-testid="check-result" data-metric={result.metric} data-passed={String(result.passed)}>
        <td class="mono" title={checkedName(result)}>{checkedName(result)}</td>
        <td title={result.metric}>{result.metric}</td>
        <td class="num mono">{value(result.limit)}</td>
        <td class="num mono" title={result.detail ?? ''}>{value(result.value)}</td>
        <td>{result.passed ? <span class="check-pass">pass</span> : <span class="check-fail">FAIL</span>}</td>
      </tr>
      {!result.passed && (result.detail || diffable) && (
        <tr class="check-more">
          <td colSpan={5}>
            {result.detail && <span class="muted">{result.detail} </span>}
            {diffable && (
              <button class="link-btn" data-testid="check-diff-last-passing" title={`Diff ${result.model} against ${lastPassing.slice(0, 7)}`}
                onClick={() => opener('modelDiff')({ request: { a: result.model, rev_a: lastPassing } })}>diff against {lastPassing.slice(0, 7)}, the last passing commit</button>
            )}
          </td>
        </tr>
      )}
    </>
  );
}

export function ChecksSection() {
  const current = report.value;
  return (
    <div class="scm-checks" data-testid="scm-checks">
      <div class="scm-checks-bar">
        <span class="scm-group-title">Budgets</span>
        {current && <span data-testid="checks-verdict" class={current.passed ? 'check-pass' : 'check-fail'}>{current.passed ? 'all pass' : 'failing'}</span>}
        <button class="btn" data-testid="scm-edit-budgets" title={`Edit the budgets in ${CONFIG}`} onClick={() => openBudgetsEditor()}>Edit</button>
        <button class="btn" data-testid="scm-run-checks" disabled={running.value || isViewer.value}
          title={isViewer.value ? viewerReason('run the checks') : undefined} onClick={() => void runProjectChecks()}>
          {running.value ? 'Checking…' : 'Run checks'}
        </button>
      </div>
      {checkError.value && <div class="form-error" data-testid="checks-error">{checkError.value}</div>}
      {current && (
        <table class="tool-table scm-checks-table">
          <thead><tr><th>Model</th><th>Metric</th><th class="num">Limit</th><th class="num">Value</th><th /></tr></thead>
          <tbody>{current.results.map((r) => <ResultRow key={`${checkedName(r)}:${r.metric}:${r.device}`} result={r} lastPassing={current.last_passing} />)}</tbody>
        </table>
      )}
    </div>
  );
}
