// The Keyboard Shortcuts editor (Ctrl+K Ctrl+S): every command with its keys, searchable; a key is
// changed by pressing it (a chord: two presses), with the commands it would clash with shown
// before it is kept; a changed command can be reset to its default keys or left with none.
import { useEffect, useRef, useState } from 'preact/hooks';
import { allCommands, commandTitle, type Command } from '../../kernel/commands';
import { keptWhere } from './focus';
import { browserMayKeep, eventPress, formatKey } from '../../kernel/keys';
import { conflictsOf, defaultKeys, isChanged, keysOf, resetKeys, setKeys } from './store';
import './keybindings.css';

function matches(command: Command, query: string): boolean {
  const text = `${commandTitle(command)} ${command.id} ${keysOf(command).map(formatKey).join(' ')} ${keysOf(command).join(' ')}`.toLowerCase();
  return query.toLowerCase().split(/\s+/).every((word) => text.includes(word));
}

function Notes({ keyText, command }: { keyText: string; command: Command }) {
  const others = conflictsOf(keyText, command.id);
  const kept = keptWhere(keyText);
  return (
    <>
      {others.length > 0 && (
        <div class="kb-conflict" data-testid="keybinding-conflict">
          {formatKey(keyText)} is also the key of {others.map(commandTitle).join(', ')}
        </div>
      )}
      {kept && <div class="kb-note">{kept}</div>}
      {browserMayKeep(keyText) && <div class="kb-note">The browser may keep this key for itself (it does in a plain browser tab).</div>}
    </>
  );
}

function Recorder({ command, done }: { command: Command; done: () => void }) {
  const [presses, setPresses] = useState<string[]>([]);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  const key = presses.join(' ');
  const keep = () => {
    if (!key) return;
    setKeys(command, [key]);
    done();
  };
  const onKeyDown = (ev: KeyboardEvent) => {
    ev.preventDefault();
    ev.stopPropagation();
    const plain = !ev.ctrlKey && !ev.metaKey && !ev.altKey && !ev.shiftKey;
    if (plain && ev.key === 'Escape') done();
    else if (plain && ev.key === 'Enter') keep();
    else {
      const pressed = eventPress(ev);
      if (pressed) setPresses(presses.length < 2 ? [...presses, pressed] : [pressed]);
    }
  };
  return (
    <div class="kb-recorder" data-testid="keybinding-record">
      <div class="muted">Press the key for {commandTitle(command)} (a second key makes a chord), then Enter. Escape cancels.</div>
      <input ref={input} readOnly data-keybinding-recorder data-testid="keybinding-recorder" value={key ? formatKey(key) : ''}
        placeholder="Press a key…" onKeyDown={onKeyDown} onBlur={done} aria-label={`New key for ${command.label}`} />
      {key && <Notes keyText={key} command={command} />}
      <div class="kb-recorder-buttons">
        <button class="btn btn-primary" data-testid="keybinding-save" disabled={!key} onMouseDown={(ev) => ev.preventDefault()} onClick={keep}>Keep</button>
        <button class="btn" onMouseDown={(ev) => ev.preventDefault()} onClick={done}>Cancel</button>
      </div>
    </div>
  );
}

function Row({ command, recording, record }: { command: Command; recording: boolean; record: (id: string | null) => void }) {
  const keys = keysOf(command);
  const changed = isChanged(command);
  return (
    <tr data-testid="keybinding-row" data-command={command.id} class={changed ? 'kb-changed' : ''} tabIndex={0}
      onDblClick={() => record(command.id)} onKeyDown={(ev) => {
        if (ev.key === 'Enter' && ev.target === ev.currentTarget) {
          ev.preventDefault();
          record(command.id);
        }
      }}>
      <td>
        <div>{commandTitle(command)}</div>
        <div class="muted mono kb-id">{command.id}</div>
      </td>
      <td data-testid="keybinding-key">
        {keys.length ? keys.map((k) => <kbd key={k} class="palette-key">{formatKey(k)}</kbd>) : <span class="muted">—</span>}
        {keys.map((k) => <Notes key={k} keyText={k} command={command} />)}
        {recording && <Recorder command={command} done={() => record(null)} />}
      </td>
      <td class="muted" data-testid="keybinding-source">{changed ? 'Yours' : 'Default'}</td>
      <td class="kb-actions">
        <button class="icon-btn" title="Change the key" aria-label={`Change the key of ${command.label}`} data-testid="keybinding-edit"
          onClick={() => record(command.id)}>✎</button>
        {keys.length > 0 && (
          <button class="icon-btn" title="Remove the key" aria-label={`Remove the key of ${command.label}`} data-testid="keybinding-remove"
            onClick={() => setKeys(command, [])}>✕</button>
        )}
        {changed && (
          <button class="icon-btn" title={`Reset to the default (${defaultKeys(command).map(formatKey).join(', ') || 'no key'})`}
            aria-label={`Reset the key of ${command.label}`} data-testid="keybinding-reset" onClick={() => resetKeys(command)}>↺</button>
        )}
      </td>
    </tr>
  );
}

export function ShortcutsEditor() {
  const [query, setQuery] = useState('');
  const [recording, setRecording] = useState<string | null>(null);
  const search = useRef<HTMLInputElement>(null);
  useEffect(() => search.current?.focus(), []);
  const rows = allCommands().filter((c) => matches(c, query.trim()));
  return (
    <div class="kb-editor" data-testid="keybindings-editor">
      <div class="kb-toolbar">
        <input ref={search} type="search" data-testid="keybindings-search" placeholder="Search commands and keys" value={query}
          onInput={(ev) => setQuery(ev.currentTarget.value)} />
        <span class="muted">{rows.length} commands · Ctrl is ⌘ on macOS · saved for you on this server</span>
      </div>
      <div class="kb-table-wrap">
        <table class="kb-table">
          <thead>
            <tr><th>Command</th><th>Key</th><th>Source</th><th /></tr>
          </thead>
          <tbody>
            {rows.map((command) => (
              <Row key={command.id} command={command} recording={recording === command.id} record={setRecording} />
            ))}
          </tbody>
        </table>
        {rows.length === 0 && <div class="panel-message">No command matches.</div>}
      </div>
    </div>
  );
}
