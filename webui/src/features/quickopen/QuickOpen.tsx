// Ctrl/Cmd+P: type part of a file name, Enter opens it.
import { signal } from '@preact/signals';
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { openEditor } from '../../kernel/editor';
import { registerTitleAction } from '../../kernel/panels';
import { projectFiles, search, watchFileIndex } from '../../kernel/fileIndex';

const visible = signal(false);

function close(): void {
  visible.value = false;
}

function Results({ results, selected, pick }: { results: string[]; selected: number; pick: (path: string) => void }) {
  return (
    <ul class="quickopen-list" role="listbox">
      {results.map((path, i) => {
        const slash = path.lastIndexOf('/');
        return (
          <li key={path} role="option" aria-selected={i === selected} class={i === selected ? 'selected' : ''}
            data-testid="quickopen-item" data-path={path} onMouseDown={(ev) => { ev.preventDefault(); pick(path); }}>
            <span>{path.slice(slash + 1)}</span>
            <small class="muted">{slash > 0 ? path.slice(0, slash) : ''}</small>
          </li>
        );
      })}
    </ul>
  );
}

function QuickOpenBox() {
  const [files, setFiles] = useState<string[] | null>(null);
  const [query, setQuery] = useState('');
  const [selected, setSelected] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    input.current?.focus();
    void projectFiles().then(setFiles);
  }, []);
  const results = files ? search(files, query.trim()) : [];
  const pick = (path: string) => {
    close();
    openEditor(path, { preview: true });
  };
  const onKey = (ev: KeyboardEvent) => {
    if (ev.key === 'Escape') close();
    else if (ev.key === 'ArrowDown') setSelected(Math.min(selected + 1, results.length - 1));
    else if (ev.key === 'ArrowUp') setSelected(Math.max(selected - 1, 0));
    else if (ev.key === 'Enter' && results[selected]) pick(results[selected]);
    else return;
    ev.preventDefault();
  };
  return (
    <div class="quickopen-backdrop" onMouseDown={close}>
      <div class="quickopen" data-testid="quickopen" onMouseDown={(ev) => ev.stopPropagation()}>
        <input ref={input} data-testid="quickopen-input" placeholder="Go to file…" value={query} onKeyDown={onKey}
          onInput={(ev) => { setQuery(ev.currentTarget.value); setSelected(0); }} onBlur={close} />
        {files === null ? <div class="quickopen-note">Listing files…</div> : <Results results={results} selected={selected} pick={pick} />}
        {files !== null && results.length === 0 && <div class="quickopen-note">No matching file.</div>}
      </div>
    </div>
  );
}

function QuickOpenHost() {
  return visible.value ? <QuickOpenBox /> : null;
}

export function registerQuickOpen(): void {
  const host = document.createElement('div');
  document.body.append(host);
  render(<QuickOpenHost />, host);
  watchFileIndex();
  // Its key comes before the editor and the browser's print dialog see it.
  registerTitleAction({ id: 'quickopen', label: 'Go to file', category: 'Go', shortcut: 'Ctrl+P', glyph: '⌕', icon: 'go-to-file', run: () => (visible.value = true) });
}
