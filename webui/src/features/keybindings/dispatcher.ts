// The one keyboard dispatcher: every command's key, chords (Ctrl+K Ctrl+S) included, from a
// capture listener on the window that runs before the editor, the terminal and the browser see
// the key. Whether it takes a key depends on where the focus is (focus.ts). In the code editor
// Monaco resolves chords itself, so its own (Ctrl+K Ctrl+C comments a line) keep working: the
// commands' chords are given to it as keybinding rules that run them.
import { effect, signal } from '@preact/signals';
import type { monaco } from '../../monaco/setup';
import { whenMonaco, type MonacoApi } from '../../monaco/load';
import { notify } from '../../ui/toast';
import { provideCommandKeys, runCommand } from '../../kernel/commands';
import type { Overrides } from './api';
import { focusOf, takesKey, type Focus } from './focus';
import { eventPress, formatKey, press, presses } from '../../kernel/keys';
import { bindings, isRetired, keysOf, loadOverrides, resolve } from './store';

const CHORD_WAIT_MS = 5000;
const RUN_COMMAND = 'mnnwb.runCommand';

/** The first press of a chord while its second is awaited. */
export const pendingChord = signal<string | null>(null);
let chordTimer: number | undefined;
/** The editor was given a chord's first press: the second is the editor's too. */
let editorChord = false;
let monacoHasChords = false;

function take(ev: KeyboardEvent): void {
  ev.preventDefault();
  ev.stopImmediatePropagation();
}

function endChord(): void {
  window.clearTimeout(chordTimer);
  pendingChord.value = null;
}

const startsChord = (first: string, focus: Focus): boolean =>
  bindings.value.some((b) => presses(b.key).length === 2 && presses(b.key)[0] === first && takesKey(focus, b.key, b.byDefault));

function secondPress(ev: KeyboardEvent, first: string, second: string): void {
  endChord();
  take(ev);
  const key = `${first} ${second}`;
  if (runKey(key, 'workbench')) return;
  if (!isRetired(key, 'workbench')) notify(`The key combination (${formatKey(first)}, ${formatKey(second)}) is not a command.`, 'info');
}

function runKey(key: string, focus: Focus): boolean {
  const command = resolve(key, focus);
  if (!command) return false;
  command.run();
  return true;
}

function onKeyDown(ev: KeyboardEvent): void {
  if (ev.isComposing || ev.defaultPrevented) return;
  // The shortcuts editor records the keys pressed into it.
  if (ev.target instanceof Element && ev.target.closest('[data-keybinding-recorder]')) return;
  const key = eventPress(ev);
  if (!key) return; // a modifier alone: a chord's wait goes on
  const focus = focusOf(ev);
  if (editorChord) {
    editorChord = false;
    if (focus === 'editor') return;
  }
  const first = pendingChord.value;
  if (first) {
    secondPress(ev, first, key);
    return;
  }
  if (focus === 'editor' && monacoHasChords && (key === 'Ctrl+K' || startsChord(key, focus))) {
    editorChord = true; // Monaco waits for the second press and runs the chord (installMonacoChords)
    return;
  }
  if (startsChord(key, focus)) {
    take(ev);
    pendingChord.value = key;
    window.clearTimeout(chordTimer);
    chordTimer = window.setTimeout(endChord, CHORD_WAIT_MS);
    return;
  }
  if (runKey(key, focus) || isRetired(key, focus)) take(ev);
}

const MONACO_CODES: Record<string, string> = {
  '`': 'Backquote', '-': 'Minus', '=': 'Equal', '[': 'BracketLeft', ']': 'BracketRight', '\\': 'Backslash',
  ';': 'Semicolon', "'": 'Quote', ',': 'Comma', '.': 'Period', '/': 'Slash', Up: 'UpArrow',
  Down: 'DownArrow', Left: 'LeftArrow', Right: 'RightArrow',
};

function monacoPress(api: MonacoApi, text: string): number | null {
  const { ctrl, shift, alt, name } = press(text);
  const codeName = MONACO_CODES[name] ?? (/^[A-Z]$/.test(name) ? `Key${name}` : /^\d$/.test(name) ? `Digit${name}` : name);
  const code = api.KeyCode[codeName as keyof typeof api.KeyCode] as number | undefined;
  if (code === undefined) return null;
  return (ctrl ? api.KeyMod.CtrlCmd : 0) | (shift ? api.KeyMod.Shift : 0) | (alt ? api.KeyMod.Alt : 0) | code;
}

/** Monaco's number for a key, or null for a key it has no code for. */
export function monacoKey(api: MonacoApi, key: string): number | null {
  const [first, second] = presses(key).map((p) => monacoPress(api, p));
  if (first === null || second === null) return null;
  return second === undefined ? first : api.KeyMod.chord(first, second);
}

function installMonacoChords(api: MonacoApi): void {
  api.editor.addCommand({ id: RUN_COMMAND, run: (_accessor: unknown, id: string) => void runCommand(id) });
  let rules: monaco.IDisposable | null = null;
  effect(() => {
    const chords = bindings.value.filter((b) => b.key.includes(' '));
    rules?.dispose();
    rules = api.editor.addKeybindingRules(chords.flatMap((b) => {
      const keybinding = monacoKey(api, b.key);
      return keybinding === null ? [] : [{ keybinding, command: RUN_COMMAND, commandArgs: b.command.id }];
    }));
  });
  monacoHasChords = true;
}

/**
 * Starts dispatching keys with a person's saved keys (sent with the project page). Call before
 * any feature adds a key listener of its own, so this one runs first.
 */
export function installKeybindings(saved: Overrides | undefined): void {
  loadOverrides(saved);
  provideCommandKeys(keysOf);
  window.addEventListener('keydown', onKeyDown, { capture: true });
  window.addEventListener('blur', endChord);
  whenMonaco(installMonacoChords);
}
