// A file as of HEAD with, beside its first line of each run, the commit that last changed the
// run: its id, author and date (`git blame`). A click on a line shows that commit's message.
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { getBlame, type Blame, type CommitInfo } from '../../api/git';
import { AfterMonaco } from '../../monaco/AfterMonaco';
import { monacoApi } from '../../monaco/load';
import { EDITOR_OPTIONS, languageFor } from '../../monaco/options';
import type { PanelProps } from '../../kernel/panels';
import { pid } from '../../kernel/session';

const day = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);

/** The commit of each line (index 0 is line 1), and the gutter text of each line. */
function annotate(blame: Blame): { owners: string[]; gutter: string[] } {
  const owners: string[] = [];
  const gutter: string[] = [];
  for (const r of blame.ranges) {
    const c = blame.commits[r.commit];
    for (let k = 0; k < r.count; k++) {
      owners.push(r.commit);
      gutter.push(k === 0 ? `${r.commit.slice(0, 7)} ${c.author.slice(0, 14).padEnd(14)} ${day(c.time)}` : '');
    }
  }
  return { owners, gutter };
}

function BlameEditor({ blame, onLine }: { blame: Blame; onLine: (commit: CommitInfo) => void }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const { owners, gutter } = annotate(blame);
    const monaco = monacoApi();
    const model = monaco.editor.createModel(blame.text, languageFor(blame.path));
    const view = monaco.editor.create(host.current!, {
      ...EDITOR_OPTIONS,
      model,
      readOnly: true,
      lineNumbers: (n) => `${gutter[n - 1] ?? ''} ${String(n).padStart(5)}`,
      lineNumbersMinChars: 40,
    });
    const sub = view.onMouseDown((ev) => {
      const line = ev.target.position?.lineNumber;
      const sha = line ? owners[line - 1] : undefined;
      if (sha) onLine(blame.commits[sha]);
    });
    return () => {
      sub.dispose();
      view.dispose();
      model.dispose();
    };
  }, [blame]);
  return <div class="scm-diff-editor" ref={host} data-testid="git-blame-editor" />;
}

export function BlamePanel({ params }: PanelProps) {
  const path = String(params.path);
  const [blame, setBlame] = useState<Blame | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [picked, setPicked] = useState<CommitInfo | null>(null);
  useEffect(() => {
    getBlame(pid(), path).then(setBlame, (err) => setError(errorMessage(err)));
  }, [path]);
  if (error) return <div class="panel-message" data-testid="git-blame-error">{error}</div>;
  if (!blame) return <div class="panel-message">Loading…</div>;
  return (
    <div class="scm-diff" data-testid="git-blame" data-path={path} data-commits={Object.keys(blame.commits).length}>
      <div class="scm-diff-header">
        <span class="mono scm-diff-path">{path}</span>
        <span class="muted">blame at {blame.commit.slice(0, 7)}</span>
      </div>
      {picked && (
        <div class="scm-diff-note" data-testid="git-blame-commit">
          <span class="mono">{picked.sha.slice(0, 10)}</span> · {picked.author} &lt;{picked.author_email}&gt; · {picked.summary}
        </div>
      )}
      <AfterMonaco><BlameEditor blame={blame} onLine={setPicked} /></AfterMonaco>
    </div>
  );
}
