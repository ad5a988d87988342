// What a tool panel remembers and reads from the project's run history: the runs of its
// (tool, model) — newest first, the last one shown after a reload — and Compare's reference,
// known from the Convert run that made the model.
import { computed } from '@preact/signals';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { ToolName, ToolRun } from '../../api/tools';
import type { PanelProps } from '../../kernel/panels';
import type { ToolPanelParams } from './open';
import { history, loadHistory } from './store';

const modelOf = (run: ToolRun): string => String(run.args.model ?? '');

/** The runs of one tool on one model, newest first; loads the project's history once. */
export function usePanelRuns(tool: ToolName, model: string): ToolRun[] {
  useEffect(() => {
    if (!history.value) void loadHistory();
  }, []);
  const list = useMemo(() => computed(() => (history.value ?? []).filter((r) => r.tool === tool && modelOf(r) === model)), [tool, model]);
  return list.value;
}

/** The run the panel shows: its parameter (a run picked in the history), else the newest. */
export function useShownRunId(api: PanelProps['api'], params: ToolPanelParams, runs: ToolRun[]): [string | undefined, (id: string) => void] {
  const [picked, setPicked] = useState<string | undefined>(params.runId);
  useEffect(() => {
    const sub = api.onDidParametersChange((next) => {
      const runId = (next as Partial<ToolPanelParams>).runId;
      if (runId) setPicked(runId);
    });
    return () => sub.dispose();
  }, [api]);
  const pick = (id: string) => {
    setPicked(id);
    api.updateParameters({ runId: id });
  };
  return [picked ?? runs[0]?.id, pick];
}

/** The model a Convert run of the project turned into `model`: Compare's natural reference. */
export function sourceOf(model: string): string | undefined {
  const made = (history.value ?? []).find((r) => r.tool === 'convert' && r.status === 'succeeded' && r.result?.output === model);
  return made ? modelOf(made) : undefined;
}
