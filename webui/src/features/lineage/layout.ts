// A layered layout for a lineage graph: each node's column is the longest path to it from a node
// nothing flows into (commit → job → model → tool run → model → …); rows keep the graph's order.
import type { LineageGraph, LineageNode } from '../../api/lineage';

export const NODE_W = 150;
export const NODE_H = 40;
const GAP_X = 56;
const GAP_Y = 18;
const PAD = 8;

export interface Placed {
  node: LineageNode;
  x: number;
  y: number;
}

export interface Layout {
  placed: Map<string, Placed>;
  width: number;
  height: number;
}

function columns(graph: LineageGraph): Map<string, number> {
  const column = new Map(graph.nodes.map((n) => [n.id, 0]));
  // Longest path by relaxation; a lineage graph has no cycles, the bound only guards bad data.
  for (let round = 0; round < graph.nodes.length; round += 1) {
    let changed = false;
    for (const edge of graph.edges) {
      const next = (column.get(edge.source) ?? 0) + 1;
      if (column.has(edge.target) && next > column.get(edge.target)!) {
        column.set(edge.target, next);
        changed = true;
      }
    }
    if (!changed) break;
  }
  return column;
}

export function layOut(graph: LineageGraph): Layout {
  const column = columns(graph);
  const rows = new Map<number, number>();
  const placed = new Map<string, Placed>();
  for (const node of graph.nodes) {
    const col = column.get(node.id) ?? 0;
    const row = rows.get(col) ?? 0;
    rows.set(col, row + 1);
    placed.set(node.id, { node, x: PAD + col * (NODE_W + GAP_X), y: PAD + row * (NODE_H + GAP_Y) });
  }
  const cols = Math.max(0, ...column.values()) + 1;
  const maxRows = Math.max(1, ...rows.values());
  return {
    placed,
    width: PAD * 2 + cols * NODE_W + (cols - 1) * GAP_X,
    height: PAD * 2 + maxRows * NODE_H + (maxRows - 1) * GAP_Y,
  };
}
