// One row of the commit graph as a small SVG: lanes passing through, lanes ending in the dot,
// and the edges to the commit's parents.
import type { JSX } from 'preact';
import type { GraphRow } from './graph';

export const ROW_HEIGHT = 22;
const LANE_WIDTH = 12;
const COLORS = ['#3794ff', '#f5a623', '#b180d7', '#3fb950', '#f14c4c', '#4ec9b0', '#d7ba7d'];

const x = (lane: number) => LANE_WIDTH / 2 + lane * LANE_WIDTH;
const color = (lane: number) => COLORS[lane % COLORS.length];

function edge(key: string, x1: number, y1: number, x2: number, y2: number, stroke: string) {
  const d = x1 === x2 ? `M${x1} ${y1}V${y2}` : `M${x1} ${y1}C${x1} ${(y1 + y2) / 2} ${x2} ${(y1 + y2) / 2} ${x2} ${y2}`;
  return <path key={key} d={d} stroke={stroke} fill="none" stroke-width="1.5" />;
}

export function GraphCell({ row, sha, lanes }: { row: GraphRow; sha: string; lanes: number }) {
  const mid = ROW_HEIGHT / 2;
  const paths: JSX.Element[] = [];
  row.above.forEach((waiting, i) => {
    if (waiting === null) return;
    paths.push(edge(`a${i}`, x(i), 0, waiting === sha ? x(row.lane) : x(i), mid, color(i)));
  });
  row.below.forEach((waiting, j) => {
    if (waiting === null) return;
    if (j !== row.lane && row.above[j] === waiting) paths.push(edge(`p${j}`, x(j), mid, x(j), ROW_HEIGHT, color(j)));
  });
  row.parentLanes.forEach((j, n) => paths.push(edge(`e${n}`, x(row.lane), mid, x(j), ROW_HEIGHT, color(j))));
  const width = lanes * LANE_WIDTH;
  return (
    <svg class="scm-graph" width={width} height={ROW_HEIGHT} viewBox={`0 0 ${width} ${ROW_HEIGHT}`} aria-hidden="true">
      {paths}
      <circle cx={x(row.lane)} cy={mid} r="3.5" fill={color(row.lane)} stroke="#1e1e1e" stroke-width="1" />
    </svg>
  );
}
