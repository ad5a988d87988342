// F1 / Ctrl+Shift+P: every action with its keys, filtered as you type; Ctrl+G: go to line.
import { signal } from '@preact/signals';
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { formatKey } from '../../kernel/keys';
import { allCommands, commandKeys, commandTitle, isEnabled, registerCommand, type Command } from '../../kernel/commands';
import { goToLine } from './goToLine';
import './palette.css';

type Mode = 'commands' | 'line';
const mode = signal<Mode | null>(null);

const close = () => (mode.value = null);

const keysText = (command: Command): string => commandKeys(command).map(formatKey).join(', ');

function matches(command: Command, query: string): boolean {
  const text = `${commandTitle(command)} ${keysText(command)}`.toLowerCase();
  return query.toLowerCase().split(/\s+/).every((word) => text.includes(word));
}

const listed = (query: string): Command[] => allCommands().filter((c) => isEnabled(c) && matches(c, query));

function CommandList({ query, selected, pick }: { query: string; selected: number; pick: (c: Command) => void }) {
  const found = listed(query);
  if (!found.length) return <div class="quickopen-note">No matching command.</div>;
  return (
    <ul class="quickopen-list" role="listbox">
      {found.map((command, i) => (
        <li key={command.id} role="option" aria-selected={i === selected} class={i === selected ? 'selected' : ''}
          data-testid="palette-item" data-command={command.id} onMouseDown={(ev) => { ev.preventDefault(); pick(command); }}>
          <span>{commandTitle(command)}</span>
          {commandKeys(command).length > 0 && <kbd class="palette-key">{keysText(command)}</kbd>}
        </li>
      ))}
    </ul>
  );
}

function PaletteBox({ kind }: { kind: Mode }) {
  const [query, setQuery] = useState('');
  const [selected, setSelected] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), [kind]);
  const found = kind === 'commands' ? listed(query) : [];
  const pick = (command: Command) => {
    close();
    command.run();
  };
  const onKey = (ev: KeyboardEvent) => {
    if (ev.key === 'Escape') close();
    else if (kind === 'commands' && ev.key === 'ArrowDown') setSelected(Math.min(selected + 1, found.length - 1));
    else if (kind === 'commands' && ev.key === 'ArrowUp') setSelected(Math.max(selected - 1, 0));
    else if (ev.key === 'Enter' && kind === 'commands' && found[selected]) pick(found[selected]);
    else if (ev.key === 'Enter' && kind === 'line') {
      close();
      goToLine(query);
    } else return;
    ev.preventDefault();
  };
  return (
    <div class="quickopen-backdrop" onMouseDown={close}>
      <div class="quickopen" data-testid={kind === 'commands' ? 'palette' : 'goto-line'} onMouseDown={(ev) => ev.stopPropagation()}>
        <input ref={input} data-testid="palette-input" value={query} onKeyDown={onKey} onBlur={close}
          placeholder={kind === 'commands' ? 'Type a command…' : 'Line number, or line:column, then Enter'}
          onInput={(ev) => { setQuery(ev.currentTarget.value); setSelected(0); }} />
        {kind === 'commands' && <CommandList query={query} selected={selected} pick={pick} />}
      </div>
    </div>
  );
}

function PaletteHost() {
  const kind = mode.value;
  return kind ? <PaletteBox key={kind} kind={kind} /> : null;
}

export function registerPalette(): void {
  const host = document.createElement('div');
  document.body.append(host);
  render(<PaletteHost />, host);
  // Their keys come before Monaco's (its own F1 list) and the browser's (Ctrl+G finds again).
  registerCommand({ id: 'palette', label: 'Show all commands', category: 'View', shortcut: 'F1, Ctrl+Shift+P', run: () => (mode.value = 'commands') });
  registerCommand({ id: 'goto-line', label: 'Go to line', category: 'Go', shortcut: 'Ctrl+G', run: () => (mode.value = 'line') });
}
