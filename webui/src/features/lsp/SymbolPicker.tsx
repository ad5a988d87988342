// Go to symbol in workspace (Ctrl+Alt+O, or the palette): type part of a function, class or
// module-level name of the project's Python files (`workspace/symbol`), Enter opens it.
import { signal } from '@preact/signals';
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorMessage } from '../../api/client';
import { registerCommand } from '../../kernel/commands';
import { revealMatch } from '../../kernel/editor';
import { readyClient } from './connection';
import type { LspRange } from './convert';
import { pathOf } from './documents';

interface SymbolInformation {
  name: string;
  kind: number;
  containerName?: string;
  location: { uri: string; range: LspRange };
}

interface Found {
  name: string;
  kind: number;
  container: string;
  path: string;
  line: number;
  column: number;
}

const visible = signal(false);
const QUERY_DELAY_MS = 120;
// The protocol's SymbolKind numbers the server answers.
const KIND_NAMES: Record<number, string> = { 5: 'class', 6: 'method', 12: 'function', 13: 'variable', 14: 'constant' };

const close = () => (visible.value = false);

async function lookUp(query: string): Promise<Found[] | string> {
  const lsp = await readyClient();
  if (!lsp) return 'The Python language server is not available.';
  try {
    const symbols = await lsp.call<SymbolInformation[] | null>('workspace/symbol', { query });
    return (symbols ?? []).flatMap((s) => {
      const path = pathOf(lsp, s.location.uri);
      return path === null ? [] : [{
        name: s.name, kind: s.kind, container: s.containerName ?? '', path,
        line: s.location.range.start.line + 1, column: s.location.range.start.character + 1,
      }];
    });
  } catch (err) {
    return errorMessage(err);
  }
}

function SymbolBox() {
  const [query, setQuery] = useState('');
  const [found, setFound] = useState<Found[] | string | null>(null);
  // The query `found` answers: Enter before the answer to what was typed waits for it rather
  // than open a symbol of an older list.
  const [answered, setAnswered] = useState<string | null>(null);
  const [enterPending, setEnterPending] = useState(false);
  const [selected, setSelected] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  useEffect(() => {
    let current = true;
    const timer = window.setTimeout(() => void lookUp(query).then((answer) => {
      if (current) {
        setFound(answer);
        setAnswered(query);
        setSelected(0);
      }
    }), QUERY_DELAY_MS);
    return () => {
      current = false;
      window.clearTimeout(timer);
    };
  }, [query]);
  const results = Array.isArray(found) ? found : [];
  const pick = (symbol: Found) => {
    close();
    void revealMatch(symbol.path, symbol.line, symbol.column, symbol.name.length);
  };
  const current = answered === query;
  useEffect(() => {
    if (enterPending && current) {
      setEnterPending(false);
      if (results[0]) pick(results[0]);
    }
  }, [enterPending, current, found]);
  const onKey = (ev: KeyboardEvent) => {
    if (ev.key === 'Escape') close();
    else if (ev.key === 'ArrowDown') setSelected(Math.min(selected + 1, results.length - 1));
    else if (ev.key === 'ArrowUp') setSelected(Math.max(selected - 1, 0));
    else if (ev.key === 'Enter' && !current) setEnterPending(true);
    else if (ev.key === 'Enter' && results[selected]) pick(results[selected]);
    else return;
    ev.preventDefault();
  };
  return (
    <div class="quickopen-backdrop" onMouseDown={close}>
      <div class="quickopen" data-testid="symbol-picker" onMouseDown={(ev) => ev.stopPropagation()}>
        <input ref={input} data-testid="symbol-input" placeholder="Go to symbol in workspace…" value={query}
          onKeyDown={onKey} onBlur={close} onInput={(ev) => { setQuery(ev.currentTarget.value); setEnterPending(false); }} />
        {found === null && <div class="quickopen-note">Looking…</div>}
        {typeof found === 'string' && <div class="quickopen-note">{found}</div>}
        {Array.isArray(found) && !found.length && <div class="quickopen-note">No matching symbol.</div>}
        {results.length > 0 && (
          <ul class="quickopen-list" role="listbox" data-query={answered ?? ''}>
            {results.map((symbol, i) => (
              <li key={`${symbol.path}:${symbol.line}:${symbol.column}`} role="option" aria-selected={i === selected}
                class={i === selected ? 'selected' : ''} data-testid="symbol-item" data-path={symbol.path} data-line={symbol.line}
                onMouseDown={(ev) => { ev.preventDefault(); pick(symbol); }}>
                <span class="symbol-kind muted">{KIND_NAMES[symbol.kind] ?? ''}</span>
                <span>{symbol.container ? `${symbol.container}.` : ''}{symbol.name}</span>
                <small class="muted">{symbol.path}:{symbol.line}</small>
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}

function SymbolHost() {
  return visible.value ? <SymbolBox /> : null;
}

export function openSymbolPicker(): void {
  visible.value = true;
}

function onKeyDown(ev: KeyboardEvent): void {
  if ((ev.ctrlKey || ev.metaKey) && ev.altKey && !ev.shiftKey && ev.key.toLowerCase() === 'o') {
    ev.preventDefault();
    ev.stopPropagation();
    openSymbolPicker();
  }
}

export function registerSymbolPicker(): void {
  const host = document.createElement('div');
  document.body.append(host);
  render(<SymbolHost />, host);
  window.addEventListener('keydown', onKeyDown, { capture: true });
  registerCommand({ id: 'python.workspace-symbol', label: 'Go to symbol in workspace', shortcut: 'Ctrl+Alt+O', run: openSymbolPicker });
}
