// A model file opened in the editor area: its summary (from an Inspect run: format, inputs,
// outputs, parameters, ops) and size, with buttons for the tools and the graph; its spec
// (docs/model-spec.md) and, for a .mnn model, Try it on a file of the project.
import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { startRun, type InspectResult, type ModelSpecInfo } from '../../api/tools';
import type { PanelFactory, PanelProps } from '../../kernel/panels';
import { isViewer } from '../../kernel/account';
import { pid } from '../../kernel/session';
import { formatBytes } from './format';
import { modelMenuItems } from './menu';
import { Card, type Summary } from './ModelDiffSummary';
import { isActive, putRun, runs } from './store';
import { SpecCard } from './spec/SpecCard';
import { TryIt } from './spec/TryIt';
import './modeldiff.css';

function useInspect(path: string): Summary | null {
  const [runId, setRunId] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (isViewer.value) return setError('Viewers cannot run Inspect: an editor of the project can.');
    startRun(pid(), 'inspect', { model: path }).then((run) => {
      putRun(run);
      setRunId(run.id);
    }, (err) => setError(errorMessage(err)));
  }, [path]);
  const run = runId ? runs.value[runId] : undefined;
  if (error) return { note: error };
  if (!run || isActive(run)) return null;
  if (run.status === 'succeeded' && run.result) return { result: run.result as unknown as InspectResult };
  return { note: run.error ?? `Inspect ended ${run.status}.` };
}

function ModelView({ params }: PanelProps) {
  const path = String(params.path);
  const size = Number(params.size ?? 0);
  const summary = useInspect(path);
  const [spec, setSpec] = useState<ModelSpecInfo | null>(null);
  const entry = { path, name: path.slice(path.lastIndexOf('/') + 1), type: 'file' as const, size, mtime: 0 };
  return (
    <div class="model-view" data-testid="model-view" data-path={path}>
      <div class="model-view-head">
        <span class="mono">{path}</span>
        <span class="muted" data-testid="model-view-size">{formatBytes(size)}</span>
      </div>
      <Card summary={summary} testid="model-summary" />
      <div class="model-view-actions">
        {modelMenuItems(entry).map((item) => (
          <button key={item.testid} class="btn btn-small" data-testid={item.testid.replace('menu-tool-', 'model-action-')} onClick={item.action}>
            {item.label.replace('…', '')}
          </button>
        ))}
      </div>
      <SpecCard path={path} onSaved={setSpec} />
      {path.toLowerCase().endsWith('.mnn') && <TryIt path={path} spec={spec} />}
    </div>
  );
}

export const modelView: PanelFactory = (props) => <ModelView {...props} />;
