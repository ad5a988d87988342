// Where a key is pressed decides who gets it. The workbench takes its commands' keys everywhere
// as VS Code does (F1, Ctrl+B, Ctrl+Shift+F, F9, …), but a key a person gave a command does not
// take away the editing keys of the editor and text fields (Ctrl+D, Ctrl+/, Alt+Up, …), and a
// terminal's shell keeps its Ctrl and Alt letters (Ctrl+C, Ctrl+R, Ctrl+K, Alt+B, …) except
// Ctrl+B, Ctrl+J and Ctrl+P, which VS Code's terminal leaves to the workbench too.
import { press, presses } from '../../kernel/keys';

export type Focus = 'editor' | 'terminal' | 'text' | 'workbench';

export function focusOf(ev: KeyboardEvent): Focus {
  const target = ev.target instanceof Element ? ev.target : document.activeElement;
  if (!target) return 'workbench';
  if (target.closest('.xterm')) return 'terminal';
  if (target.closest('.monaco-editor')) return 'editor';
  if (target.closest('input, textarea, select, [contenteditable]:not([contenteditable="false"])')) return 'text';
  return 'workbench';
}

/** Keys the code editor acts on (VS Code's editing defaults) and text fields mostly share. */
export const EDITOR_KEYS = new Set([
  ...'ACVXZYFHDLUI/[]'.split('').map((k) => `Ctrl+${k}`),
  'Ctrl+Shift+Z', 'Ctrl+Enter', 'Ctrl+Shift+Enter', 'Ctrl+Shift+K', 'Ctrl+Shift+L', 'Ctrl+Shift+\\',
  'Ctrl+Shift+[', 'Ctrl+Shift+]', 'Ctrl+Space', 'Ctrl+Shift+Space', 'Ctrl+.', 'Ctrl+Shift+O', 'Ctrl+K',
  'Ctrl+M', 'Ctrl+F2', 'Ctrl+F12', 'Ctrl+Home', 'Ctrl+End', 'Ctrl+Left', 'Ctrl+Right', 'Ctrl+Up',
  'Ctrl+Down', 'Ctrl+Backspace', 'Ctrl+Delete', 'Ctrl+Shift+Left', 'Ctrl+Shift+Right', 'Ctrl+Shift+Up',
  'Ctrl+Shift+Down', 'Ctrl+Shift+Home', 'Ctrl+Shift+End', 'Ctrl+Alt+Up', 'Ctrl+Alt+Down',
  'Ctrl+Shift+Alt+Up', 'Ctrl+Shift+Alt+Down', 'Ctrl+Shift+Alt+Left', 'Ctrl+Shift+Alt+Right',
  'Alt+Up', 'Alt+Down', 'Alt+Enter', 'Alt+Z', 'Shift+Alt+Up', 'Shift+Alt+Down', 'Shift+Alt+Left',
  'Shift+Alt+Right', 'Shift+Alt+A', 'Shift+Alt+F', 'Shift+Alt+I', 'Shift+Alt+O', 'Ctrl+Alt+Enter',
  'F2', 'F3', 'Shift+F3', 'F8', 'Shift+F8', 'F12', 'Shift+F12', 'Alt+F12', 'Ctrl+Shift+F12',
]);

const WORKBENCH_CTRL_LETTERS = new Set(['B', 'J', 'P']);

/** A press that types or moves in text: no Ctrl or Alt, and not an F key. */
function typing(text: string): boolean {
  const p = press(text);
  return !p.ctrl && !p.alt && !/^F\d+$/.test(p.name);
}

function shellKey(text: string): boolean {
  const p = press(text);
  if (p.shift || p.ctrl === p.alt || /^F\d+$/.test(p.name) || p.name.length !== 1 || p.name === '`') return false;
  return !(p.ctrl && WORKBENCH_CTRL_LETTERS.has(p.name));
}

/** Whether the workbench takes `key` where it was pressed; `byDefault`: a command's default key. */
export function takesKey(focus: Focus, key: string, byDefault: boolean): boolean {
  const first = presses(key)[0];
  if (focus === 'workbench') return true;
  if (typing(first)) return false;
  if (focus === 'terminal') return !shellKey(first);
  return byDefault || !EDITOR_KEYS.has(first);
}

/** Why a key a person picks may not act everywhere, for the shortcuts editor. */
export function keptWhere(key: string): string | null {
  const first = presses(key)[0];
  if (typing(first)) return 'Typed into the editor, the terminal and text fields: it acts only elsewhere.';
  const parts: string[] = [];
  if (EDITOR_KEYS.has(first)) parts.push('the editor and text fields');
  if (shellKey(first)) parts.push('the terminal');
  return parts.length ? `Kept by ${parts.join(' and ')} while they have the focus.` : null;
}
