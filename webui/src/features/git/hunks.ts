// Part of a diff applied: the text one side should hold once some hunks, or some lines, are
// staged, unstaged or discarded. The diff editor's line changes say what differs; a pick says
// which of them (or which of their lines) move. As in `git add -p`, a removed line that is not
// picked stays, and an added line that is not picked is left out.

/** One change as Monaco's diff editor reports it (an empty side has end line 0, and its start
 * is the line after which the other side's lines go). */
export interface LineChange {
  originalStartLineNumber: number;
  originalEndLineNumber: number;
  modifiedStartLineNumber: number;
  modifiedEndLineNumber: number;
}

/** Lines picked on each side: original (removed) and modified (added) line numbers. */
export interface Pick {
  original: ReadonlySet<number>;
  modified: ReadonlySet<number>;
}

const linesOf = (text: string): string[] => (text === '' ? [] : text.split(/(?<=\n)/));

function range(start: number, end: number): number[] {
  const out: number[] = [];
  for (let n = start; n <= end; n++) out.push(n);
  return out;
}

const removed = (c: LineChange) => (c.originalEndLineNumber === 0 ? [] : range(c.originalStartLineNumber, c.originalEndLineNumber));
const added = (c: LineChange) => (c.modifiedEndLineNumber === 0 ? [] : range(c.modifiedStartLineNumber, c.modifiedEndLineNumber));

/** Every line of the given changes. */
export function pickChanges(changes: readonly LineChange[]): Pick {
  return { original: new Set(changes.flatMap(removed)), modified: new Set(changes.flatMap(added)) };
}

/** Joins lines so that every one but the last ends a line (a side that ended without a newline
 * may now be followed by another line). */
function join(lines: string[], eol: string): string {
  return lines.map((line, i) => (i < lines.length - 1 && !line.endsWith('\n') ? line + eol : line)).join('');
}

const eolOf = (text: string) => (text.includes('\r\n') ? '\r\n' : '\n');

/**
 * ``original`` with the picked lines of ``changes`` applied: picked removed lines go, picked
 * added lines come. ``invert``: ``modified`` with the picked lines taken back instead (picked
 * added lines go, picked removed lines return) — unstaging or discarding them.
 */
export function applyPick(original: string, modified: string, changes: readonly LineChange[], pick: Pick, invert = false): string {
  const o = linesOf(original);
  const m = linesOf(modified);
  const out: string[] = [];
  // Walk the original, copying what no change touches; each change contributes its kept lines.
  let nextOriginal = 1;
  for (const c of [...changes].sort((a, b) => a.originalStartLineNumber - b.originalStartLineNumber)) {
    const before = c.originalEndLineNumber === 0 ? c.originalStartLineNumber : c.originalStartLineNumber - 1;
    while (nextOriginal <= before && nextOriginal <= o.length) out.push(o[nextOriginal - 1]), nextOriginal++;
    const gone = removed(c);
    const come = added(c);
    // A line past the end is the empty last line an editor shows after a final newline.
    const keep = (lines: string[], n: number) => n <= lines.length && out.push(lines[n - 1]);
    if (!invert) {
      for (const n of gone) if (!pick.original.has(n)) keep(o, n);
      for (const n of come) if (pick.modified.has(n)) keep(m, n);
    } else {
      for (const n of gone) if (pick.original.has(n)) keep(o, n);
      for (const n of come) if (!pick.modified.has(n)) keep(m, n);
    }
    if (gone.length) nextOriginal = gone[gone.length - 1] + 1;
  }
  while (nextOriginal <= o.length) out.push(o[nextOriginal - 1]), nextOriginal++;
  return join(out, eolOf(modified || original));
}

/** The change at a line of the modified side: the one holding it, a deletion right at it, else
 * the next one below, else the last one. */
export function changeAt(changes: readonly LineChange[], line: number): LineChange | null {
  const holding = changes.find((c) =>
    c.modifiedEndLineNumber === 0
      ? line === c.modifiedStartLineNumber || line === c.modifiedStartLineNumber + 1
      : line >= c.modifiedStartLineNumber && line <= c.modifiedEndLineNumber);
  return holding ?? changes.find((c) => c.modifiedStartLineNumber >= line) ?? changes[changes.length - 1] ?? null;
}

/**
 * The lines a selection of modified lines ``from``–``to`` picks: the added lines in it, and the
 * removed lines of each change it covers whole (a deletion counts when it sits inside the
 * selection or just at it). With ``side: 'original'`` the selection is of original lines, the
 * other way round.
 */
export function pickLines(changes: readonly LineChange[], from: number, to: number, side: 'original' | 'modified'): Pick {
  const original = new Set<number>();
  const modified = new Set<number>();
  const within = (n: number) => n >= from && n <= to;
  for (const c of changes) {
    const [mine, theirs, mineSet, theirsSet, anchor] = side === 'modified'
      ? [added(c), removed(c), modified, original, c.modifiedStartLineNumber]
      : [removed(c), added(c), original, modified, c.originalStartLineNumber];
    const picked = mine.filter(within);
    picked.forEach((n) => mineSet.add(n));
    const whole = mine.length > 0 ? picked.length === mine.length : within(anchor) || within(anchor + 1);
    if (whole) theirs.forEach((n) => theirsSet.add(n));
  }
  return { original, modified };
}

// Past this many cells the middle of two texts is not compared line by line: it is one change.
const MAX_CELLS = 4_000_000;

/** The changes between two lists of lines (common start and end trimmed, then a longest common
 * subsequence), in the diff editor's form. */
export function diffLines(a: readonly string[], b: readonly string[]): LineChange[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) endA--, endB--;
  const n = endA - start;
  const m = endB - start;
  if (n === 0 && m === 0) return [];
  // Pairs of equal lines (indices into a and b), in order.
  const pairs: [number, number][] = [];
  if (n > 0 && m > 0 && n * m <= MAX_CELLS) {
    const lcs = new Uint32Array((n + 1) * (m + 1));
    const at = (i: number, j: number) => i * (m + 1) + j;
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[at(i, j)] = a[start + i] === b[start + j] ? lcs[at(i + 1, j + 1)] + 1 : Math.max(lcs[at(i + 1, j)], lcs[at(i, j + 1)]);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      if (a[start + i] === b[start + j]) pairs.push([start + i, start + j]), i++, j++;
      else if (lcs[at(i + 1, j)] >= lcs[at(i, j + 1)]) i++;
      else j++;
    }
  }
  pairs.push([endA, endB]);
  const changes: LineChange[] = [];
  let prevA = start;
  let prevB = start;
  for (const [pa, pb] of pairs) {
    if (pa > prevA || pb > prevB) {
      const removedCount = pa - prevA;
      const addedCount = pb - prevB;
      changes.push({
        originalStartLineNumber: removedCount ? prevA + 1 : prevA,
        originalEndLineNumber: removedCount ? pa : 0,
        modifiedStartLineNumber: addedCount ? prevB + 1 : prevB,
        modifiedEndLineNumber: addedCount ? pb : 0,
      });
    }
    prevA = pa + 1;
    prevB = pb + 1;
  }
  return changes;
}
