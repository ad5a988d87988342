// The outcome of a run: the tool's result view, or what went wrong.
import type { BenchmarkResult, CompareResult, ConvertResult, InspectResult, QuantizeResult, ToolRun } from '../../api/tools';
import { formatDuration } from './format';
import { BenchmarkView } from './results/BenchmarkResult';
import { CompareView } from './results/CompareResult';
import { ConvertView, QuantizeView } from './results/ConvertResult';
import { InspectView } from './results/InspectResult';

function View({ run }: { run: ToolRun }) {
  const result = run.result as unknown;
  switch (run.tool) {
    case 'convert':
      return <ConvertView result={result as ConvertResult} />;
    case 'quantize':
      return <QuantizeView result={result as QuantizeResult} />;
    case 'inspect':
      return <InspectView result={result as InspectResult} />;
    case 'compare':
      return <CompareView result={result as CompareResult} model={String(run.args.model ?? '')} />;
    case 'benchmark':
      return <BenchmarkView result={result as BenchmarkResult} args={run.args} />;
  }
}

export function RunResult({ run }: { run: ToolRun }) {
  if (run.status === 'queued' || run.status === 'running') return <div class="tool-empty muted">Running…</div>;
  if (run.status !== 'succeeded' || !run.result) {
    return <div class="form-error tool-error" data-testid="tool-error">{run.error ?? `The run ended ${run.status}.`}</div>;
  }
  return (
    <>
      <div class="tool-done muted">Finished in {formatDuration(run.created_at, run.finished_at)}</div>
      <View run={run} />
    </>
  );
}
