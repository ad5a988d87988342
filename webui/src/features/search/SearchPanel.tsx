// Search across files (Ctrl+Shift+F): results stream in grouped by file; a click opens the match.
// Replace shows every change first and applies only to files unchanged since the preview.
import { useEffect, useRef } from 'preact/hooks';
import type { SearchMatch } from './api';
import { revealMatch } from '../../kernel/editor';
import { applyPreview, options, preview, replacement, results, runSearch, searching, showPreview, summary } from './store';
import { isViewer } from '../../kernel/account';

type Flag = 'case' | 'word' | 'regex';
const FLAGS: [Flag, string, string][] = [['case', 'Aa', 'Match case'], ['word', 'ab', 'Whole word'], ['regex', '.*', 'Regular expression']];
let debounce: number | undefined;

function update(patch: Partial<typeof options.value>): void {
  options.value = { ...options.value, ...patch };
  window.clearTimeout(debounce);
  debounce = window.setTimeout(() => void runSearch(), 250);
}

function MatchLine({ match }: { match: SearchMatch }) {
  const at = match.column - 1 - match.preview_start;
  const text = match.preview;
  return (
    <li class="search-match" data-testid="search-match" data-path={match.path} data-line={match.line}
      onClick={() => void revealMatch(match.path, match.line, match.column, match.length, { preview: true })}>
      <span class="muted search-line">{match.line}</span>
      <span class="mono">{text.slice(0, at).trimStart()}<mark>{text.slice(at, at + match.length)}</mark>{text.slice(at + match.length)}</span>
    </li>
  );
}

function Results() {
  const byFile = [...results.value.entries()];
  return (
    <ul class="search-results">
      {byFile.map(([path, matches]) => (
        <li key={path}>
          <div class="search-file" data-testid="search-file" title={path}>{path} <span class="search-count">{matches.length}</span></div>
          <ul>{matches.map((m) => <MatchLine key={`${m.line}:${m.column}`} match={m} />)}</ul>
        </li>
      ))}
    </ul>
  );
}

function Preview() {
  const files = preview.value ?? [];
  return (
    <div class="search-preview" data-testid="replace-preview">
      {files.map((file) => (
        <div key={file.path}>
          <div class="search-file">{file.path} <span class="search-count">{file.count}</span></div>
          {file.changes.map((change) => (
            <div key={change.line} class="mono search-change">
              <div class="search-before">{change.line}: {change.before}</div>
              <div class="search-after">{change.line}: {change.after}</div>
            </div>
          ))}
        </div>
      ))}
      <div class="search-actions">
        <button class="btn" data-testid="replace-apply" onClick={() => void applyPreview()} disabled={!files.length}>Replace all</button>
        <button class="btn" onClick={() => (preview.value = null)}>Cancel</button>
      </div>
    </div>
  );
}

export function SearchPanel() {
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  const opts = options.value;
  return (
    <div class="search-panel" data-testid="search-panel">
      <div class="search-row">
        <input ref={input} data-testid="search-input" placeholder="Search" value={opts.q}
          onInput={(ev) => update({ q: ev.currentTarget.value })} onKeyDown={(ev) => ev.key === 'Enter' && void runSearch()} />
        {FLAGS.map(([flag, glyph, label]) => (
          <button key={flag} class={`icon-btn search-flag${opts[flag] ? ' on' : ''}`} title={label} aria-label={label}
            aria-pressed={opts[flag]} data-testid={`search-${flag}`} onClick={() => update({ [flag]: !opts[flag] })}>{glyph}</button>
        ))}
      </div>
      {!isViewer.value && (
        <div class="search-row">
          <input data-testid="replace-input" placeholder="Replace" value={replacement.value}
            onInput={(ev) => (replacement.value = ev.currentTarget.value)} />
          <button class="btn btn-small" data-testid="replace-preview-btn" disabled={!opts.q} onClick={() => void showPreview()}>Replace…</button>
        </div>
      )}
      <input data-testid="search-glob" placeholder="Files to include, e.g. *.py, !tests/**" value={opts.glob}
        onInput={(ev) => update({ glob: ev.currentTarget.value })} />
      <div class="muted search-summary" data-testid="search-summary" aria-live="polite">{searching.value && !results.value.size ? 'Searching…' : summary.value}</div>
      {preview.value ? <Preview /> : <Results />}
    </div>
  );
}
