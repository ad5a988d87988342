// The Problems panel: every diagnostic the language server reports for open and lately changed
// Python files, by file, errors first; a click opens the file at the problem. The status bar's
// counts (ProblemCounts) open it too.
import type { LspDiagnostic } from './convert';
import { counts, problems } from './problems';
import { revealMatch } from '../../kernel/editor';
import { dock, showPanel } from '../../kernel/panels';
import { widestGroup } from '../../kernel/areas';

export const PROBLEMS_PANEL = 'problems';
const BOTTOM_SHARE = 0.28;
const SEVERITY = ['error', 'warning', 'info', 'hint'] as const;

export function openProblems(): void {
  const api = dock();
  if (api.getPanel(PROBLEMS_PANEL)) {
    showPanel({ id: PROBLEMS_PANEL, component: PROBLEMS_PANEL, title: 'Problems' });
    return;
  }
  const sibling = api.panels.find((p) => p.id.startsWith('terminal:'));
  const area = widestGroup();
  showPanel({
    id: PROBLEMS_PANEL, component: PROBLEMS_PANEL, title: 'Problems',
    position: sibling ? { referencePanel: sibling } : area ? { referenceGroup: area, direction: 'below' } : undefined,
    initialHeight: sibling ? undefined : Math.round(api.height * BOTTOM_SHARE),
  });
}

const severityOf = (d: LspDiagnostic) => SEVERITY[(d.severity ?? 1) - 1] ?? 'error';

function FileProblems({ path, diagnostics }: { path: string; diagnostics: LspDiagnostic[] }) {
  const sorted = [...diagnostics].sort((a, b) => (a.severity ?? 1) - (b.severity ?? 1)
    || a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
  return (
    <li>
      <div class="problems-file" title={path}>{path} <span class="search-count">{diagnostics.length}</span></div>
      <ul>
        {sorted.map((d) => {
          const line = d.range.start.line + 1;
          const column = d.range.start.character + 1;
          return (
            <li key={`${line}:${column}:${d.message}`} class="problem" data-testid="problem" data-path={path} data-line={line}
              data-severity={severityOf(d)} onClick={() => void revealMatch(path, line, column, 0)}>
              <span class={`problem-icon problem-${severityOf(d)}`} aria-label={severityOf(d)}>{severityOf(d) === 'error' ? '⊗' : '⚠'}</span>
              <span class="problem-message">{d.message}</span>
              <span class="muted">{d.source ?? ''} [Ln {line}, Col {column}]</span>
            </li>
          );
        })}
      </ul>
    </li>
  );
}

export function ProblemsPanel() {
  const files = [...problems.value.entries()].sort(([a], [b]) => a.localeCompare(b));
  return (
    <div class="problems-panel" data-testid="problems-panel">
      {files.length === 0
        ? <div class="muted problems-none">No problems in the open and recently changed Python files.</div>
        : <ul class="problems-list">{files.map(([path, diagnostics]) => <FileProblems key={path} path={path} diagnostics={diagnostics} />)}</ul>}
    </div>
  );
}

/** In the status bar: errors and warnings; a click shows the Problems panel. */
export function ProblemCounts() {
  const { errors, warnings } = counts();
  return (
    <button type="button" class="status-item status-problems" data-testid="status-problems" data-errors={errors}
      data-warnings={warnings} title="Problems" onClick={openProblems}>
      ⊗ {errors} ⚠ {warnings}
    </button>
  );
}
