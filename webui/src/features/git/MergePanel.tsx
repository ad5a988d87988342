// The 3-way merge editor of a conflicted file: theirs, base and ours side by side (read only) and
// the result below (editable). Each conflict is accepted from theirs, ours or both; "Mark
// resolved" writes the result and stages it, then the merge is committed from Source Control.
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { getConflict, resolveConflict, type ConflictFile } from '../../api/git';
import { AfterMonaco } from '../../monaco/AfterMonaco';
import { monacoApi } from '../../monaco/load';
import { EDITOR_OPTIONS, languageFor } from '../../monaco/options';
import type { monaco } from '../../monaco/setup';
import type { PanelProps } from '../../kernel/panels';
import { pid } from '../../kernel/session';
import { buildResult, MARKER, type Choice } from './merge';
import { busy, refresh, setStatus } from '../../kernel/gitStore';

function ReadOnlySide({ title, path, text, testid }: { title: string; path: string; text: string; testid: string }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const monaco = monacoApi();
    const model = monaco.editor.createModel(text, languageFor(path));
    const view = monaco.editor.create(host.current!, { ...EDITOR_OPTIONS, model, readOnly: true, lineNumbers: 'off' });
    return () => {
      view.dispose();
      model.dispose();
    };
  }, [text]);
  return (
    <div class="scm-merge-side" data-testid={testid}>
      <div class="scm-merge-title">{title}</div>
      <div class="scm-merge-editor" ref={host} />
    </div>
  );
}

/** The editable result; `text` replaces its content whenever a choice changes it. */
function ResultEditor({ path, text, onEdit }: { path: string; text: string; onEdit: (value: string) => void }) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  useEffect(() => {
    const monaco = monacoApi();
    const model = monaco.editor.createModel(text, languageFor(path));
    const editor = monaco.editor.create(host.current!, { ...EDITOR_OPTIONS, model });
    const sub = model.onDidChangeContent(() => onEdit(model.getValue()));
    view.current = editor;
    return () => {
      sub.dispose();
      editor.dispose();
      model.dispose();
      view.current = null;
    };
  }, [path]);
  useEffect(() => {
    const model = view.current?.getModel();
    if (model && model.getValue() !== text) model.setValue(text);
  }, [text]);
  return <div class="scm-merge-editor" ref={host} data-testid="git-merge-result" />;
}

function ConflictList({ file, choices, onChoose }: { file: ConflictFile; choices: Choice[]; onChoose: (n: number, c: Choice) => void }) {
  const conflicts = file.chunks.filter((c) => c.kind === 'conflict');
  return (
    <div class="scm-merge-conflicts">
      {conflicts.map((c, n) => (
        <div key={n} class="scm-merge-conflict" data-testid="git-merge-conflict" data-choice={choices[n] ?? ''}>
          <span class="scm-merge-label">Conflict {n + 1}</span>
          <span class="muted mono scm-merge-preview" title={c.theirs}>{c.theirs.split('\n')[0]}</span>
          {(['theirs', 'ours', 'both'] as const).map((side) => (
            <button key={side} class={choices[n] === side ? 'btn btn-small btn-primary' : 'btn btn-small'}
              data-testid={`git-merge-accept-${side}`} onClick={() => onChoose(n, side)}>
              Accept {side}
            </button>
          ))}
        </div>
      ))}
    </div>
  );
}

function BinaryChoice({ file, onTake }: { file: ConflictFile; onTake: (side: 'ours' | 'theirs') => void }) {
  return (
    <div class="panel-message">
      <p>{file.path} is binary: keep one side whole.</p>
      <button class="btn" data-testid="git-merge-take-theirs" disabled={file.theirs_deleted} onClick={() => onTake('theirs')}>Take theirs</button>{' '}
      <button class="btn" data-testid="git-merge-take-ours" disabled={file.ours_deleted} onClick={() => onTake('ours')}>Take ours</button>
    </div>
  );
}

export function MergePanel({ params }: PanelProps) {
  const path = String(params.path);
  const [file, setFile] = useState<ConflictFile | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [choices, setChoices] = useState<Choice[]>([]);
  const [result, setResult] = useState('');
  const [done, setDone] = useState(false);
  useEffect(() => {
    getConflict(pid(), path).then((f) => { setFile(f); setResult(buildResult(f.chunks, [])); }, (err) => setError(errorMessage(err)));
  }, [path]);
  const choose = (n: number, choice: Choice) => {
    const next = [...choices];
    next[n] = choice;
    setChoices(next);
    if (file) setResult(buildResult(file.chunks, next));
  };
  const finish = async (resolution: { content: string } | { take: 'ours' | 'theirs' }) => {
    busy.value = 'Resolving…';
    try {
      setStatus(await resolveConflict(pid(), path, resolution));
      setDone(true);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      busy.value = null;
      void refresh();
    }
  };
  if (done) return <div class="panel-message" data-testid="git-merge-done">{path} is resolved and staged: commit the merge from Source Control.</div>;
  if (error) return <div class="panel-message" data-testid="git-merge-error">{error}</div>;
  if (!file) return <div class="panel-message">Loading…</div>;
  if (file.binary) return <BinaryChoice file={file} onTake={(take) => void finish({ take })} />;
  const unresolved = result.includes(MARKER);
  return (
    <AfterMonaco>
      <div class="scm-merge" data-testid="git-merge" data-path={path}>
        <div class="scm-diff-header">
          <span class="mono scm-diff-path">{path}</span>
          <span class="muted">{unresolved ? 'conflict markers left in the result' : 'no conflict markers left'}</span>
          <span class="status-spacer" />
          <button class="btn btn-small btn-primary" data-testid="git-merge-resolve" disabled={unresolved || busy.value !== null}
            onClick={() => void finish({ content: result })}>Mark resolved</button>
        </div>
        <div class="scm-merge-sides">
          <ReadOnlySide title="Theirs (incoming)" path={path} text={file.theirs ?? ''} testid="git-merge-theirs" />
          <ReadOnlySide title="Base" path={path} text={file.base ?? ''} testid="git-merge-base" />
          <ReadOnlySide title="Ours (current)" path={path} text={file.ours ?? ''} testid="git-merge-ours" />
        </div>
        <ConflictList file={file} choices={choices} onChoose={choose} />
        <div class="scm-merge-title">Result</div>
        <ResultEditor path={path} text={result} onEdit={setResult} />
      </div>
    </AfterMonaco>
  );
}
