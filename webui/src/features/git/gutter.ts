// Change markers in every editor of a file Git tracks: a bar beside lines added (green) or
// changed (blue) since the index, a wedge where lines were deleted (red), following each edit.
// A click on a marker opens the change inline, below it: the lines as the index has them, with
// Stage Hunk, Revert Hunk (an edit of the buffer, undoable) and the file's diff.
import { effect } from '@preact/signals';
import { getDiff, stageText } from '../../api/git';
import { monacoApi } from '../../monaco/load';
import type { monaco } from '../../monaco/setup';
import { notify } from '../../ui/toast';
import type { Doc } from '../../kernel/editor';
import { isViewer } from '../../kernel/account';
import { pid } from '../../kernel/session';
import { applyPick, diffLines, pickChanges, type LineChange } from './hunks';
import { openDiff } from './open';
import { refresh, repoState, setStatus, status } from '../../kernel/gitStore';

const RECOMPUTE_MS = 200;
const splitLines = (text: string) => text.split(/\r\n|\r|\n/);

type Kind = 'added' | 'modified' | 'deleted';

export function changeKind(c: LineChange): Kind {
  if (c.originalEndLineNumber === 0) return 'added';
  if (c.modifiedEndLineNumber === 0) return 'deleted';
  return 'modified';
}

/** The modified lines a change marks (a deletion marks the line it follows, or line 1). */
function markedLines(c: LineChange): [number, number] {
  if (c.modifiedEndLineNumber === 0) return [Math.max(1, c.modifiedStartLineNumber), Math.max(1, c.modifiedStartLineNumber)];
  return [c.modifiedStartLineNumber, c.modifiedEndLineNumber];
}

interface Base {
  text: string;
  sha: string | null;
}

export function gitGutter(editor: monaco.editor.IStandaloneCodeEditor, doc: Doc): monaco.IDisposable {
  const model = doc.model;
  if (!model || doc.binary) return { dispose: () => undefined };
  const monaco = monacoApi();
  const markers = editor.createDecorationsCollection();
  let base: Base | null = null;
  let changes: LineChange[] = [];
  let timer: number | undefined;
  let zone: { id: string; change: LineChange } | null = null;
  let disposed = false;

  const closeZone = () => {
    if (!zone) return;
    const id = zone.id;
    editor.changeViewZones((access) => access.removeZone(id));
    zone = null;
  };

  const paint = () => {
    changes = base === null ? [] : diffLines(splitLines(base.text), model.getLinesContent());
    markers.set(changes.map((c) => {
      const [from, to] = markedLines(c);
      const kind = changeKind(c);
      return {
        range: new monaco.Range(from, 1, to, 1),
        options: { isWholeLine: true, linesDecorationsClassName: `git-gutter git-gutter-${kind}`, overviewRuler: undefined },
      };
    }));
    if (zone && !changes.some((c) => sameChange(c, zone!.change))) closeZone();
  };

  let asked = 0;
  const load = async () => {
    const mine = ++asked;
    let next: Base | null = null;
    if (repoState.value === 'ready') {
      try {
        const diff = await getDiff(pid(), doc.path, false);
        // Untracked (no index side) or binary: no markers.
        next = diff.binary || diff.old === null ? null : { text: diff.old, sha: diff.old_sha };
      } catch {
        next = null; // a file Git cannot diff (gone, outside the work tree) has no markers
      }
    }
    // Only the latest answer counts: an older one may hold an index since replaced.
    if (disposed || mine !== asked) return;
    base = next;
    paint();
  };

  const stageHunk = async (c: LineChange) => {
    if (!base) return;
    const text = applyPick(base.text, model.getValue(), changes, pickChanges([c]));
    try {
      setStatus(await stageText(pid(), doc.path, text, base.sha));
      closeZone();
    } catch (err) {
      notify(err instanceof Error ? err.message : String(err));
    } finally {
      void refresh();
    }
  };

  const revertHunk = (c: LineChange) => {
    if (!base) return;
    const old = splitLines(base.text);
    const removed = c.originalEndLineNumber === 0 ? [] : old.slice(c.originalStartLineNumber - 1, c.originalEndLineNumber);
    const eol = model.getEOL();
    let range: monaco.IRange;
    let text: string;
    if (c.modifiedEndLineNumber === 0) {
      // Deleted lines come back after the line they followed.
      const line = c.modifiedStartLineNumber;
      range = line === 0 ? new monaco.Range(1, 1, 1, 1) : new monaco.Range(line, model.getLineMaxColumn(line), line, model.getLineMaxColumn(line));
      text = line === 0 ? removed.join(eol) + eol : eol + removed.join(eol);
    } else if (removed.length === 0) {
      // Added lines go, with the line break before them (or after, at the top).
      const first = c.modifiedStartLineNumber;
      const last = c.modifiedEndLineNumber;
      range = first > 1
        ? new monaco.Range(first - 1, model.getLineMaxColumn(first - 1), last, model.getLineMaxColumn(last))
        : new monaco.Range(1, 1, Math.min(last + 1, model.getLineCount()), last < model.getLineCount() ? 1 : model.getLineMaxColumn(last));
      text = '';
    } else {
      range = new monaco.Range(c.modifiedStartLineNumber, 1, c.modifiedEndLineNumber, model.getLineMaxColumn(c.modifiedEndLineNumber));
      text = removed.join(eol);
    }
    editor.pushUndoStop();
    editor.executeEdits('git-revert-hunk', [{ range, text }]);
    editor.pushUndoStop();
    closeZone();
  };

  const openZone = (c: LineChange) => {
    closeZone();
    if (!base) return;
    const old = splitLines(base.text);
    const removed = c.originalEndLineNumber === 0 ? [] : old.slice(c.originalStartLineNumber - 1, c.originalEndLineNumber);
    const node = document.createElement('div');
    node.className = 'git-inline-diff';
    node.dataset.testid = 'git-inline-diff';
    node.dataset.kind = changeKind(c);
    const bar = document.createElement('div');
    bar.className = 'git-inline-bar';
    const title = document.createElement('span');
    title.textContent = removed.length ? `${removed.length} line(s) in the index:` : 'Lines added since the index';
    bar.append(title);
    const button = (label: string, testid: string, run: () => void) => {
      const b = document.createElement('button');
      b.className = 'btn btn-small';
      b.textContent = label;
      b.dataset.testid = testid;
      b.addEventListener('mousedown', (ev) => ev.preventDefault());
      b.addEventListener('click', (ev) => { ev.stopPropagation(); run(); });
      bar.append(b);
    };
    if (!isViewer.value) {
      button('Stage Hunk', 'git-inline-stage', () => void stageHunk(c));
      button('Revert Hunk', 'git-inline-revert', () => revertHunk(c));
    }
    button('Open Diff', 'git-inline-open', () => openDiff({ path: doc.path }));
    button('×', 'git-inline-close', closeZone);
    node.append(bar);
    for (const line of removed) {
      const row = document.createElement('div');
      row.className = 'git-inline-old';
      row.textContent = line || ' ';
      node.append(row);
    }
    const lineHeight = editor.getOption(monaco.editor.EditorOption.lineHeight);
    const after = c.modifiedEndLineNumber === 0 ? c.modifiedStartLineNumber : c.modifiedEndLineNumber;
    editor.changeViewZones((access) => {
      const id = access.addZone({ afterLineNumber: after, heightInPx: (removed.length + 1) * lineHeight + 8, domNode: node });
      zone = { id, change: c };
    });
  };

  const parts: monaco.IDisposable[] = [
    model.onDidChangeContent(() => {
      window.clearTimeout(timer);
      timer = window.setTimeout(paint, RECOMPUTE_MS);
    }),
    editor.onMouseDown((ev) => {
      if (ev.target.type !== monaco.editor.MouseTargetType.GUTTER_LINE_DECORATIONS || !ev.target.position) return;
      const line = ev.target.position.lineNumber;
      const hit = changes.find((c) => {
        const [from, to] = markedLines(c);
        return line >= from && line <= to;
      });
      if (!hit) return;
      ev.event.preventDefault();
      if (zone && sameChange(zone.change, hit)) closeZone();
      else openZone(hit);
    }),
  ];
  // The index changes with every status (stage, commit, checkout): read it again then.
  const stop = effect(() => {
    void status.value;
    void repoState.value;
    void load();
  });
  return {
    dispose: () => {
      disposed = true;
      window.clearTimeout(timer);
      stop();
      closeZone();
      markers.clear();
      parts.forEach((p) => p.dispose());
    },
  };
}

function sameChange(a: LineChange, b: LineChange): boolean {
  return a.originalStartLineNumber === b.originalStartLineNumber && a.originalEndLineNumber === b.originalEndLineNumber
    && a.modifiedStartLineNumber === b.modifiedStartLineNumber && a.modifiedEndLineNumber === b.modifiedEndLineNumber;
}
