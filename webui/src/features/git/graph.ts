// Lanes of a simple commit graph, computed from parents over a newest-first log. Each lane holds
// the commit it waits for; a commit takes the lane that waits for it (or a free one), hands its
// lane to its first parent and opens lanes for further parents.

export interface GraphRow {
  /** The lane of the commit's dot. */
  lane: number;
  /** Lanes entering the row from above: the commit each one waits for, null when free. */
  above: (string | null)[];
  /** Lanes leaving the row downwards. */
  below: (string | null)[];
  /** Lanes the commit's parents continue in. */
  parentLanes: number[];
}

function freeLane(lanes: (string | null)[]): number {
  const free = lanes.indexOf(null);
  return free >= 0 ? free : lanes.length;
}

function trimmed(lanes: (string | null)[]): (string | null)[] {
  let end = lanes.length;
  while (end > 0 && lanes[end - 1] === null) end -= 1;
  return lanes.slice(0, end);
}

export function layoutGraph(commits: { sha: string; parents: string[] }[]): GraphRow[] {
  let lanes: (string | null)[] = [];
  return commits.map(({ sha, parents }) => {
    const above = trimmed(lanes);
    let lane = lanes.indexOf(sha);
    if (lane < 0) lane = freeLane(lanes);
    // Every other lane that waited for this commit ends here.
    lanes = lanes.map((waiting, i) => (waiting === sha && i !== lane ? null : waiting));
    lanes[lane] = parents[0] ?? null;
    const parentLanes = parents.length ? [lane] : [];
    for (const parent of parents.slice(1)) {
      let target = lanes.indexOf(parent);
      if (target < 0) {
        target = freeLane(lanes);
        lanes[target] = parent;
      }
      parentLanes.push(target);
    }
    return { lane, above, below: trimmed(lanes), parentLanes };
  });
}

export const laneCount = (rows: GraphRow[]): number =>
  rows.reduce((max, r) => Math.max(max, r.above.length, r.below.length, r.lane + 1), 1);

/** The log in the given order, except that no commit comes before one of its children (commits
 *  made within the same second may arrive the other way round, which would break the lanes). */
export function childrenFirst<T extends { sha: string; parents: string[] }>(commits: T[]): T[] {
  const waiting = new Map<string, number>();
  const known = new Set(commits.map((c) => c.sha));
  for (const c of commits) {
    for (const p of c.parents) if (known.has(p)) waiting.set(p, (waiting.get(p) ?? 0) + 1);
  }
  const left = [...commits];
  const ordered: T[] = [];
  while (left.length) {
    const next = left.findIndex((c) => !waiting.get(c.sha));
    // A cycle cannot happen in Git; the fallback only guards against a malformed answer.
    const [commit] = left.splice(next < 0 ? 0 : next, 1);
    ordered.push(commit);
    for (const p of commit.parents) if (waiting.has(p)) waiting.set(p, waiting.get(p)! - 1);
  }
  return ordered;
}
