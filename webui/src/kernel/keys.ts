// The key syntax: one press, or a chord of two separated by a space ("Ctrl+K Ctrl+S"); a press is
// modifiers (Ctrl, Shift, Alt, in that order) and one key name joined by "+". Ctrl stands for
// Ctrl, and for Command on macOS: either modifier presses it on every system. The server keeps a
// person's keys in the same spelling (server/keybindings/keys.py).

const MODIFIERS = ['Ctrl', 'Shift', 'Alt'] as const;
const MODIFIER_NAMES: Record<string, (typeof MODIFIERS)[number]> = {
  ctrl: 'Ctrl', control: 'Ctrl', cmd: 'Ctrl', meta: 'Ctrl', shift: 'Shift', alt: 'Alt', option: 'Alt',
};
const NAMED = ['Tab', 'Enter', 'Escape', 'Space', 'Backspace', 'Delete', 'Insert', 'Home', 'End', 'PageUp', 'PageDown', 'Up', 'Down', 'Left', 'Right'];
const PUNCTUATION = '`-=[]\\;\',./';

const NAMES = new Map<string, string>([
  ...NAMED.map((n): [string, string] => [n.toLowerCase(), n]),
  ...[...'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'].map((c): [string, string] => [c.toLowerCase(), c]),
  ...Array.from({ length: 24 }, (_, i): [string, string] => [`f${i + 1}`, `F${i + 1}`]),
  ...[...PUNCTUATION].map((c): [string, string] => [c, c]),
]);

function normalizePress(text: string): string | null {
  if (!text || /\s/.test(text)) return null;
  const parts = text.split('+');
  const name = NAMES.get(parts.pop()!.toLowerCase());
  if (!name) return null;
  const seen = new Set<string>();
  for (const part of parts) {
    const modifier = MODIFIER_NAMES[part.toLowerCase()];
    if (!modifier || seen.has(modifier)) return null;
    seen.add(modifier);
  }
  return [...MODIFIERS.filter((m) => seen.has(m)), name].join('+');
}

/** The key in its one spelling ("shift+ctrl+p" → "Ctrl+Shift+P"), or null when it is none. */
export function normalizeKey(text: string): string | null {
  const presses = text.trim().split(' ');
  if (presses.length > 2) return null;
  const normal = presses.map(normalizePress);
  return normal.every(Boolean) ? normal.join(' ') : null;
}

/** A command's default keys: "F1, Ctrl+Shift+P" or a list; the ones that are no key are left out. */
export function parseKeys(shortcut: string | string[] | undefined): string[] {
  if (!shortcut) return [];
  const texts = Array.isArray(shortcut) ? shortcut : shortcut.split(/,\s+/);
  return texts.map(normalizeKey).filter((k): k is string => k !== null);
}

export interface Press {
  ctrl: boolean;
  shift: boolean;
  alt: boolean;
  name: string;
}

export function press(text: string): Press {
  const parts = text.split('+');
  const name = parts.pop()!;
  return { ctrl: parts.includes('Ctrl'), shift: parts.includes('Shift'), alt: parts.includes('Alt'), name };
}

export const presses = (key: string): string[] => key.split(' ');

const CODES: Record<string, string> = {
  Backquote: '`', Minus: '-', Equal: '=', BracketLeft: '[', BracketRight: ']', Backslash: '\\',
  Semicolon: ';', Quote: "'", Comma: ',', Period: '.', Slash: '/', Tab: 'Tab', Enter: 'Enter',
  NumpadEnter: 'Enter', Escape: 'Escape', Space: 'Space', Backspace: 'Backspace', Delete: 'Delete',
  Insert: 'Insert', Home: 'Home', End: 'End', PageUp: 'PageUp', PageDown: 'PageDown', ArrowUp: 'Up',
  ArrowDown: 'Down', ArrowLeft: 'Left', ArrowRight: 'Right',
};
const KEYS: Record<string, string> = {
  ' ': 'Space', ArrowUp: 'Up', ArrowDown: 'Down', ArrowLeft: 'Left', ArrowRight: 'Right', Esc: 'Escape',
};

/** The key's name by its place on the keyboard (`code`), so Shift or a layout does not change it. */
function keyName(ev: KeyboardEvent): string | null {
  const code = ev.code ?? '';
  const letter = /^Key([A-Z])$/.exec(code) ?? /^(?:Digit|Numpad)(\d)$/.exec(code);
  if (letter) return letter[1];
  if (/^F([1-9]|1\d|2[0-4])$/.test(code)) return code;
  if (CODES[code]) return CODES[code];
  // Events without a code (some made by scripts) go by the key they carry.
  return NAMES.get(ev.key.toLowerCase()) ?? KEYS[ev.key] ?? null;
}

/** The press an event is ("Ctrl+Shift+E"); null for a modifier alone or a key outside the syntax. */
export function eventPress(ev: KeyboardEvent): string | null {
  const name = keyName(ev);
  if (!name) return null;
  const mods = [ev.ctrlKey || ev.metaKey ? 'Ctrl' : '', ev.shiftKey ? 'Shift' : '', ev.altKey ? 'Alt' : ''];
  return [...mods.filter(Boolean), name].join('+');
}

export const isMac = /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);

/** A key as shown to people: as written, with Cmd for Ctrl and Option for Alt on macOS. */
export function formatKey(key: string): string {
  if (!isMac) return key;
  return presses(key).map((p) => p.split('+').map((part, i, all) => {
    if (i === all.length - 1) return part;
    return part === 'Ctrl' ? 'Cmd' : part === 'Alt' ? 'Option' : part;
  }).join('+')).join(' ');
}

/** Keys the browser itself may keep (it closes, opens or switches tabs and windows with them). */
const BROWSER_KEYS = new Set(['Ctrl+W', 'Ctrl+T', 'Ctrl+N', 'Ctrl+Shift+W', 'Ctrl+Shift+T', 'Ctrl+Shift+N', 'Ctrl+Tab', 'Ctrl+Shift+Tab', 'Ctrl+PageUp', 'Ctrl+PageDown']);

export const browserMayKeep = (key: string): boolean => BROWSER_KEYS.has(presses(key)[0]);
