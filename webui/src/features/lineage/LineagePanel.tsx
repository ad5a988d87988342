// The lineage of one project file, in a dock panel: loaded when shown, reloaded on request.
import { useEffect, useState } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { getLineage, type LineageGraph } from '../../api/lineage';
import type { PanelFactory, PanelProps } from '../../kernel/panels';
import { pid } from '../../kernel/session';
import { LineageView } from './LineageView';
import { openNode } from './open';

function LineagePanel({ params }: PanelProps) {
  const path = String(params.path);
  const [graph, setGraph] = useState<LineageGraph | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () => {
    setError(null);
    getLineage(pid(), path).then(setGraph, (err) => setError(errorMessage(err)));
  };
  useEffect(load, [path]);
  return (
    <div class="lineage-panel" data-testid="lineage-panel" data-path={path}>
      <div class="lineage-toolbar">
        <span class="mono">{path}</span> <button class="btn" onClick={load} data-testid="lineage-reload">Reload</button>
      </div>
      {error && <div class="panel-message">Cannot read the lineage of {path}: {error}</div>}
      {!error && !graph && <div class="panel-message">Loading…</div>}
      {graph && <LineageView graph={graph} onOpen={openNode} />}
    </div>
  );
}

export const lineagePanel: PanelFactory = (props) => <LineagePanel {...props} />;
