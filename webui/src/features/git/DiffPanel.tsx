// A file's change in a Monaco diff editor: side by side, inline when the panel is narrow. Work
// tree and index diffs follow the status as it refreshes; binary files show size and hash.
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { getCommitDiff, getDiff, type GitDiff } from '../../api/git';
import { isViewer } from '../../kernel/account';
import { AfterMonaco } from '../../monaco/AfterMonaco';
import { monacoApi } from '../../monaco/load';
import { disposeDiffModels, languageFor } from '../../monaco/options';
import type { monaco } from '../../monaco/setup';
import { openEditor } from '../../kernel/editor';
import type { PanelProps } from '../../kernel/panels';
import { pid } from '../../kernel/session';
import { stage, stagePart, unstage, type PartOp } from './actions';
import { changeAt, pickChanges, pickLines, type LineChange, type Pick } from './hunks';
import { BinaryDiff } from './BinaryDiff';
import type { SideRevs } from '../../kernel/fileViews';
import type { DiffTarget } from './open';
import { busy, status } from '../../kernel/gitStore';

// Below this width the two sides would be unreadable; Monaco switches to the inline view.
const INLINE_BELOW_PX = 700;

/** Where each side of the diff lives, for the blob route (null: the working tree). */
function sideRevs(target: DiffTarget): SideRevs {
  if (target.sha) return [`${target.sha}^`, target.sha];
  return target.staged ? ['HEAD', ':0'] : [':0', null];
}

function fetchDiff(target: DiffTarget): Promise<GitDiff> {
  if (target.sha) return getCommitDiff(pid(), target.sha, target.path);
  return getDiff(pid(), target.path, target.staged ?? false);
}

interface Views {
  view: monaco.editor.IStandaloneDiffEditor;
  original: monaco.editor.ITextModel;
  modified: monaco.editor.ITextModel;
}

/** The lines the cursor's hunk, or the selection, picks: the side that has focus decides. */
function pickIn(views: Views, changes: LineChange[], what: 'hunk' | 'lines'): Pick | null {
  const originalEditor = views.view.getOriginalEditor();
  const onOriginal = originalEditor.hasTextFocus() || originalEditor.hasWidgetFocus();
  const editor = onOriginal ? originalEditor : views.view.getModifiedEditor();
  const selection = editor.getSelection();
  if (!selection) return null;
  if (what === 'lines') {
    // A selection that ends at column 1 of a line does not take that line.
    const end = selection.endColumn === 1 && selection.endLineNumber > selection.startLineNumber
      ? selection.endLineNumber - 1 : selection.endLineNumber;
    return pickLines(changes, selection.startLineNumber, end, onOriginal ? 'original' : 'modified');
  }
  const line = selection.positionLineNumber;
  const change = onOriginal
    ? changes.find((c) => line >= c.originalStartLineNumber && line <= Math.max(c.originalEndLineNumber, c.originalStartLineNumber + 1))
      ?? changeAt(changes, views.view.getModifiedEditor().getPosition()?.lineNumber ?? 1)
    : changeAt(changes, line);
  return change ? pickChanges([change]) : null;
}

interface HunkOp {
  op: PartOp;
  what: 'hunk' | 'lines';
  label: string;
  testid: string;
}

function hunkOps(target: DiffTarget): HunkOp[] {
  if (target.sha) return [];
  if (target.staged) {
    return [
      { op: 'unstage', what: 'hunk', label: 'Unstage Hunk', testid: 'diff-unstage-hunk' },
      { op: 'unstage', what: 'lines', label: 'Unstage Selected Lines', testid: 'diff-unstage-lines' },
    ];
  }
  return [
    { op: 'stage', what: 'hunk', label: 'Stage Hunk', testid: 'diff-stage-hunk' },
    { op: 'stage', what: 'lines', label: 'Stage Selected Lines', testid: 'diff-stage-lines' },
    { op: 'discard', what: 'hunk', label: 'Discard Hunk', testid: 'diff-discard-hunk' },
    { op: 'discard', what: 'lines', label: 'Discard Selected Lines', testid: 'diff-discard-lines' },
  ];
}

function TextDiff({ diff, target }: { diff: GitDiff; target: DiffTarget }) {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<Views | null>(null);
  // The line changes of the texts on screen (null while Monaco computes them after an update).
  const [changes, setChanges] = useState<LineChange[] | null>(null);
  const shown = useRef(diff);
  const ops = isViewer.value ? [] : hunkOps(target);
  const apply = (hop: HunkOp) => {
    const current = editor.current;
    if (!current || !changes) return;
    const pick = pickIn(current, changes, hop.what);
    if (!pick || (pick.original.size === 0 && pick.modified.size === 0)) return;
    void stagePart(hop.op, shown.current, current.original.getValue(), current.modified.getValue(), changes, pick);
  };
  const applyRef = useRef(apply);
  applyRef.current = apply;
  useEffect(() => {
    const monaco = monacoApi();
    const language = languageFor(diff.path);
    const original = monaco.editor.createModel('', language);
    const modified = monaco.editor.createModel('', language);
    const view = monaco.editor.createDiffEditor(host.current!, {
      theme: 'mnnwb-dark',
      automaticLayout: true,
      readOnly: true,
      originalEditable: false,
      renderSideBySide: true,
      useInlineViewWhenSpaceIsLimited: true,
      renderSideBySideInlineBreakpoint: INLINE_BELOW_PX,
      renderOverviewRuler: false,
      minimap: { enabled: false },
      scrollBeyondLastLine: false,
      fontSize: 13,
    });
    view.setModel({ original, modified });
    editor.current = { view, original, modified };
    const opened = revealFirstChange(view);
    const updated = view.onDidUpdateDiff(() => setChanges(view.getLineChanges() ?? []));
    // The same actions in the editor's context menu, on the lines right-clicked.
    const actions = ops.map((hop, i) => view.getModifiedEditor().addAction({
      id: `git.${hop.op}.${hop.what}`,
      label: hop.label,
      contextMenuGroupId: '0_git',
      contextMenuOrder: i,
      run: () => applyRef.current(hop),
    }));
    return () => {
      opened.dispose();
      updated.dispose();
      actions.forEach((a) => a.dispose());
      view.dispose();
      disposeDiffModels(original, modified);
      editor.current = null;
    };
  }, [diff.path]);
  useEffect(() => {
    // Updating the models in place keeps the scroll position when the diff refreshes.
    const current = editor.current;
    if (!current) return;
    shown.current = diff;
    const stale = current.original.getValue() !== (diff.old ?? '') || current.modified.getValue() !== (diff.new ?? '');
    if (!stale) return;
    setChanges(null);
    if (current.original.getValue() !== (diff.old ?? '')) current.original.setValue(diff.old ?? '');
    if (current.modified.getValue() !== (diff.new ?? '')) current.modified.setValue(diff.new ?? '');
  }, [diff]);
  const idle = busy.value === null && changes !== null && changes.length > 0;
  return (
    <>
      {ops.length > 0 && (
        <div class="scm-hunk-bar" data-testid="git-hunk-bar" data-hunks={changes?.length ?? ''}>
          {ops.map((hop) => (
            <button key={hop.testid} class="btn btn-small" data-testid={hop.testid} disabled={!idle}
              title={hop.what === 'hunk' ? `${hop.label}: the change at the cursor` : `${hop.label}: the changed lines selected`}
              onMouseDown={(ev) => ev.preventDefault()} onClick={() => apply(hop)}>
              {hop.label}
            </button>
          ))}
        </div>
      )}
      <div class="scm-diff-editor" ref={host} data-testid="git-diff-editor" />
    </>
  );
}

function Header({ target, same }: { target: DiffTarget; same: boolean }) {
  const side = target.sha ? `commit ${target.sha.slice(0, 7)} vs parent` : target.staged ? 'Index vs HEAD' : 'Working tree vs index';
  const file = [{ path: target.path, kind: 'modified' as const, old_path: null }];
  return (
    <div class="scm-diff-header">
      <span class="mono scm-diff-path" title={target.path}>{target.path}</span>
      <span class="muted">{side}</span>
      <span class="status-spacer" />
      {!target.sha && !target.staged && <button class="btn btn-small" data-testid="diff-stage" disabled={same} onClick={() => void stage(file)}>Stage</button>}
      {!target.sha && target.staged && <button class="btn btn-small" data-testid="diff-unstage" disabled={same} onClick={() => void unstage(file)}>Unstage</button>}
      {!target.sha && <button class="btn btn-small" data-testid="diff-open-file" onClick={() => openEditor(target.path)}>Open file</button>}
    </div>
  );
}

/** The diff opens at its first change (once: a refresh keeps where the reader scrolled to). */
function revealFirstChange(view: monaco.editor.IStandaloneDiffEditor): monaco.IDisposable {
  const sub = view.onDidUpdateDiff(() => {
    const first = view.getLineChanges()?.[0];
    if (!first) return;
    sub.dispose();
    const line = Math.max(1, first.modifiedStartLineNumber);
    view.getModifiedEditor().revealLineInCenter(line);
    view.getModifiedEditor().setPosition({ lineNumber: line, column: 1 });
  });
  return sub;
}

export function DiffPanel({ params }: PanelProps) {
  const target = params as unknown as DiffTarget;
  const [diff, setDiff] = useState<GitDiff | null>(null);
  const [error, setError] = useState<string | null>(null);
  // A commit never changes; the work tree and the index change with every status refresh.
  const version = target.sha ? null : status.value;
  useEffect(() => {
    let live = true;
    fetchDiff(target).then(
      (next) => live && (setDiff(next), setError(null)),
      (err) => live && setError(errorMessage(err)),
    );
    return () => void (live = false);
  }, [target.path, target.staged, target.sha, version]);
  const same = diff !== null && !diff.binary && diff.old === diff.new;
  return (
    <div class="scm-diff" data-testid="git-diff" data-path={target.path} data-staged={String(Boolean(target.staged))}>
      <Header target={target} same={same} />
      {error && <div class="panel-message" data-testid="git-diff-error">{error}</div>}
      {!error && !diff && <div class="panel-message">Loading…</div>}
      {!error && same && <div class="scm-diff-note" data-testid="git-diff-same">No changes.</div>}
      {!error && diff && (diff.binary ? <BinaryDiff diff={diff} revs={sideRevs(target)} /> : <AfterMonaco><TextDiff diff={diff} target={target} /></AfterMonaco>)}
    </div>
  );
}
