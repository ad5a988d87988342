// A tool panel's earlier runs (of its tool on its model): pick one to show it again.
import type { ToolRun } from '../../api/tools';
import { formatWhen } from './format';

export function RunHistory({ runs, shown, onPick }: { runs: ToolRun[]; shown?: string; onPick: (id: string) => void }) {
  if (runs.length < 2) return null;
  return (
    <label class="field tool-field">
      <span>Runs of this model ({runs.length})</span>
      <select data-testid="tool-run-history" value={shown ?? ''} onChange={(ev) => onPick(ev.currentTarget.value)}>
        {runs.map((r) => <option key={r.id} value={r.id}>{formatWhen(r.created_at)} · {r.status}</option>)}
      </select>
    </label>
  );
}
