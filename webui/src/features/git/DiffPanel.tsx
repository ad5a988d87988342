// A file's change in a Monaco diff editor: side by side, inline when the panel is narrow. Work
// tree and index diffs follow the status as it refreshes; binary files show size and hash.
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { getCommitDiff, getDiff, type GitDiff } from '../../api/git';
import { AfterMonaco } from '../../monaco/AfterMonaco';
import { monacoApi } from '../../monaco/load';
import { disposeDiffModels, languageFor } from '../../monaco/options';
import type { monaco } from '../../monaco/setup';
import { openEditor } from '../editor/openEditor';
import type { PanelProps } from '../workbench/panels';
import { pid } from '../workbench/session';
import { stage, unstage } from './actions';
import { BinaryDiff, type SideRevs } from './BinaryDiff';
import type { DiffTarget } from './open';
import { status } from './store';

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

function TextDiff({ diff }: { diff: GitDiff }) {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<{ view: monaco.editor.IStandaloneDiffEditor; original: monaco.editor.ITextModel; modified: monaco.editor.ITextModel } | null>(null);
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
    return () => {
      opened.dispose();
      view.dispose();
      disposeDiffModels(original, modified);
      editor.current = null;
    };
  }, [diff.path]);
  useEffect(() => {
    // Updating the models in place keeps the scroll position when the diff refreshes.
    const current = editor.current;
    if (!current) return;
    if (current.original.getValue() !== (diff.old ?? '')) current.original.setValue(diff.old ?? '');
    if (current.modified.getValue() !== (diff.new ?? '')) current.modified.setValue(diff.new ?? '');
  }, [diff]);
  return <div class="scm-diff-editor" ref={host} data-testid="git-diff-editor" />;
}

function Header({ target, same }: { target: DiffTarget; same: boolean }) {
  const side = target.sha ? `commit ${target.sha.slice(0, 7)} vs parent` : target.staged ? 'Index vs HEAD' : 'Working tree vs index';
  const file = [{ path: target.path, kind: 'modified' as const }];
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
    <div class="scm-diff" data-testid="git-diff" data-path={target.path}>
      <Header target={target} same={same} />
      {error && <div class="panel-message" data-testid="git-diff-error">{error}</div>}
      {!error && !diff && <div class="panel-message">Loading…</div>}
      {!error && same && <div class="scm-diff-note" data-testid="git-diff-same">No changes.</div>}
      {!error && diff && (diff.binary ? <BinaryDiff diff={diff} revs={sideRevs(target)} /> : <AfterMonaco><TextDiff diff={diff} /></AfterMonaco>)}
    </div>
  );
}
