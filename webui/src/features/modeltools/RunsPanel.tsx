// The project's tool runs, newest first; a click opens the run with its result.
import { useEffect } from 'preact/hooks';
import type { ToolRun } from '../../api/tools';
import { formatDuration, formatWhen } from './format';
import { openModelDiff } from './diff/openDiff';
import { openEditor } from '../../kernel/editor';
import { opener } from '../../kernel/openers';
import { baseName, isTool, openPipeline, openTool, TOOL_TITLES } from './open';
import { history, historyError, loadHistory } from './store';
import { StatusBadge } from './StatusBadge';

function open(run: ToolRun): void {
  if (run.tool === 'diff') openModelDiff({ runId: run.id });
  else if (run.tool === 'try') openEditor(String(run.args.model ?? ''));
  else if (run.tool === 'pipeline') openPipeline(String(run.args.model ?? ''));
  else if (run.tool === 'evaluate') opener('evaluate')({ dataset: String(run.args.dataset ?? ''), runId: run.id });
  else if (isTool(run.tool)) openTool({ tool: run.tool, model: String(run.args.model ?? ''), runId: run.id });
}

function RunRow({ run }: { run: ToolRun }) {
  const model = String(run.args.model ?? run.args.a ?? run.args.dataset ?? '');
  return (
    <tr class="tool-run-row" data-testid="tool-run-row" data-run={run.id} tabIndex={0}
      onClick={() => open(run)} onKeyDown={(ev) => ev.key === 'Enter' && open(run)}>
      <td>{run.tool === 'diff' ? 'Model diff' : run.tool === 'try' ? 'Try it' : run.tool === 'pipeline' ? 'Pipeline' : run.tool === 'evaluate' ? 'Evaluate' : isTool(run.tool) ? TOOL_TITLES[run.tool] : run.tool}</td>
      <td class="mono" title={model}>{baseName(model)}</td>
      <td><StatusBadge status={run.status} /></td>
      <td class="muted">{formatWhen(run.created_at)}</td>
      <td class="num muted">{formatDuration(run.created_at, run.finished_at)}</td>
    </tr>
  );
}

export function RunsPanel() {
  useEffect(() => void loadHistory(), []);
  const list = history.value;
  return (
    <div class="tool-runs" data-testid="tool-runs">
      <div class="panel-toolbar">
        <span class="panel-toolbar-title">Tool runs</span>
        <button class="icon-btn" title="Refresh" aria-label="Refresh" data-testid="tool-runs-refresh" onClick={() => void loadHistory()}>↻</button>
      </div>
      {historyError.value && <div class="form-error">{historyError.value}</div>}
      {list && list.length === 0 && <div class="tool-empty muted">No runs yet. Right-click a model in the file tree to convert, inspect or benchmark it.</div>}
      {list && list.length > 0 && (
        <div class="tool-runs-body">
          <table class="tool-table tool-runs-table">
            <thead><tr><th>Tool</th><th>Model</th><th>Status</th><th>Started</th><th class="num">Took</th></tr></thead>
            <tbody>{list.map((run) => <RunRow key={run.id} run={run} />)}</tbody>
          </table>
        </div>
      )}
    </div>
  );
}
