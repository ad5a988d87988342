// A lineage graph as layered SVG boxes with arrows; a click selects a node (its details show
// below) and, where the node leads somewhere (a job, a commit, a run), opens it.
import { useState } from 'preact/hooks';
import type { LineageGraph, LineageNode } from '../../api/lineage';
import { layOut, NODE_H, NODE_W, type Placed } from './layout';
import './lineage.css';

const KIND_LABEL: Record<LineageNode['kind'], string> = {
  file: 'file',
  tool_run: 'tool run',
  job: 'training job',
  commit: 'commit',
  run: 'measured',
};

function subtitle(node: LineageNode): string {
  const d = node.data;
  if (node.kind === 'file') return String(d.path ?? '');
  if (node.kind === 'job') return `${d.backend} · ${d.status}`;
  if (node.kind === 'commit') return String(d.message ?? d.sha ?? '').split('\n')[0];
  if (node.kind === 'run') {
    const figures = (d.figures ?? {}) as Record<string, unknown>;
    return typeof figures.median_ms === 'number' ? `median ${figures.median_ms.toFixed(3)} ms` : String(d.status ?? '');
  }
  return String(d.status ?? '');
}

function Arrow({ from, to }: { from: Placed; to: Placed }) {
  const x1 = from.x + NODE_W;
  const y1 = from.y + NODE_H / 2;
  const x2 = to.x;
  const y2 = to.y + NODE_H / 2;
  const mid = (x1 + x2) / 2;
  return <path class="lineage-edge" d={`M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2 - 4},${y2}`} marker-end="url(#lineage-arrow)" />;
}

function Box(props: { placed: Placed; selected: boolean; onClick: () => void }) {
  const { node, x, y } = props.placed;
  return (
    <g class={`lineage-node lineage-${node.kind}${props.selected ? ' selected' : ''}`} transform={`translate(${x},${y})`}
      data-testid="lineage-node" data-kind={node.kind} data-id={node.id} onClick={props.onClick} role="button">
      <title>{`${KIND_LABEL[node.kind]}: ${node.label}`}</title>
      <rect width={NODE_W} height={NODE_H} rx={5} />
      <text x={8} y={16} class="lineage-label">{node.label.slice(0, 22)}</text>
      <text x={8} y={31} class="lineage-sub">{subtitle(node).slice(0, 26)}</text>
    </g>
  );
}

function Details({ node }: { node: LineageNode }) {
  return (
    <div class="lineage-details" data-testid="lineage-details">
      <div class="lineage-details-title">{KIND_LABEL[node.kind]} · {node.label}</div>
      <pre class="mono">{JSON.stringify(node.data, null, 2)}</pre>
    </div>
  );
}

export function LineageView(props: { graph: LineageGraph; onOpen?: (node: LineageNode) => void }) {
  const { graph } = props;
  const [selected, setSelected] = useState<LineageNode | null>(graph.nodes[0] ?? null);
  const layout = layOut(graph);
  const click = (node: LineageNode) => {
    setSelected(node);
    props.onOpen?.(node);
  };
  return (
    <div class="lineage-view" data-testid="lineage-view">
      <div class="lineage-scroll">
        <svg width={layout.width} height={layout.height} class="lineage-svg">
          <defs>
            <marker id="lineage-arrow" viewBox="0 0 8 8" refX="6" refY="4" markerWidth="8" markerHeight="8" orient="auto">
              <path d="M0,0 L8,4 L0,8 z" class="lineage-arrowhead" />
            </marker>
          </defs>
          {graph.edges.map((e) => {
            const from = layout.placed.get(e.source);
            const to = layout.placed.get(e.target);
            return from && to ? <Arrow key={`${e.source}>${e.target}`} from={from} to={to} /> : null;
          })}
          {[...layout.placed.values()].map((p) => (
            <Box key={p.node.id} placed={p} selected={selected?.id === p.node.id} onClick={() => click(p.node)} />
          ))}
        </svg>
      </div>
      {graph.nodes.length === 1 && <p class="muted">Nothing recorded made this file: no tool run or training job wrote this content.</p>}
      {selected && <Details node={selected} />}
    </div>
  );
}
