// The keys each command has: a person's own (kept on the server, sent with the project page)
// where they changed them, else the command's defaults.
import { computed, signal } from '@preact/signals';
import { errorMessage } from '../../api/client';
import { notify } from '../../ui/toast';
import { commandList, isEnabled, type Command } from '../../kernel/commands';
import { putKeybindings, type Overrides } from './api';
import { takesKey, type Focus } from './focus';
import { formatKey, normalizeKey, parseKeys, presses } from '../../kernel/keys';

export const overrides = signal<Overrides>({});

export function loadOverrides(saved: Overrides | undefined): void {
  const clean: Overrides = {};
  for (const [id, keys] of Object.entries(saved ?? {})) {
    if (Array.isArray(keys)) clean[id] = keys.map(normalizeKey).filter((k): k is string => k !== null);
  }
  overrides.value = clean;
}

export const defaultKeys = (c: Command): string[] => parseKeys(c.shortcut);

export const isChanged = (c: Command): boolean => c.id in overrides.value;

/** The keys `c` has now. */
export const keysOf = (c: Command): string[] => overrides.value[c.id] ?? defaultKeys(c);

export interface Binding {
  key: string;
  command: Command;
  /** A default key (not one a person gave). */
  byDefault: boolean;
}

/** Every key of every command: a person's own first, so they win over a default on the same key. */
export const bindings = computed<Binding[]>(() => {
  const mine: Binding[] = [];
  const defaults: Binding[] = [];
  for (const command of commandList.value) {
    const own = overrides.value[command.id];
    if (own) mine.push(...own.map((key) => ({ key, command, byDefault: false })));
    else if (!command.ownKey) defaults.push(...defaultKeys(command).map((key) => ({ key, command, byDefault: true })));
  }
  return [...mine, ...defaults];
});

/** First presses of chords ("Ctrl+K" of "Ctrl+K Ctrl+S"). */
export const chordStarts = computed(() => new Set(bindings.value.filter((b) => b.key.includes(' ')).map((b) => presses(b.key)[0])));

/**
 * Default keys a person took away from their command (and gave no command): they do nothing
 * where the command took them. Each maps to whether the command has its own key handler (the
 * editor's Ctrl+S): such a key is kept from the editor and the workbench, not from text fields.
 */
export const retiredKeys = computed(() => {
  const bound = new Set(bindings.value.map((b) => b.key));
  const retired = new Map<string, boolean>();
  for (const command of commandList.value) {
    if (!isChanged(command)) continue;
    for (const key of defaultKeys(command)) if (!bound.has(key)) retired.set(key, Boolean(command.ownKey));
  }
  return retired;
});

export function isRetired(key: string, focus: Focus): boolean {
  const own = retiredKeys.value.get(key);
  if (own === undefined) return false;
  return own ? focus === 'editor' || focus === 'workbench' : takesKey(focus, key, true);
}

/** The command `key` runs where it was pressed, if any can run now. */
export function resolve(key: string, focus: Focus): Command | undefined {
  return bindings.value.find((b) => b.key === key && takesKey(focus, key, b.byDefault) && isEnabled(b.command))?.command;
}

/** Whether a key was bound by anyone at all (for chords: whether this press starts one). */
export const isBound = (key: string): boolean => bindings.value.some((b) => b.key === key);

/** The other commands that have `key` (or a chord `key` starts, or the press that starts `key`). */
export function conflictsOf(key: string, except?: string): Command[] {
  const first = presses(key)[0];
  return bindings.value
    .filter((b) => b.command.id !== except && (b.key === key || presses(b.key)[0] === key || b.key === first))
    .map((b) => b.command)
    .filter((c, i, all) => all.indexOf(c) === i);
}

// One request at a time, so an older set never lands after a newer one.
let saving: Promise<unknown> = Promise.resolve();

function save(next: Overrides): void {
  overrides.value = next;
  saving = saving.then(() => putKeybindings(next)).catch((err: unknown) => {
    notify(`Your keyboard shortcuts were not saved: ${errorMessage(err)}`);
  });
}

/** Gives command `id` exactly these keys (none: it has no key). */
export function setKeys(command: Command, keys: string[]): void {
  const next = { ...overrides.value };
  const same = keys.length === defaultKeys(command).length && keys.every((k, i) => k === defaultKeys(command)[i]);
  if (same) delete next[command.id];
  else next[command.id] = keys;
  save(next);
}

export function resetKeys(command: Command): void {
  const next = { ...overrides.value };
  delete next[command.id];
  save(next);
}

/** "Label (Ctrl+B)": a button's tooltip with the keys its command has now. */
export function titleWithKeys(id: string, label: string): string {
  const command = commandList.value.find((c) => c.id === id);
  const keys = command ? keysOf(command) : [];
  return keys.length ? `${label} (${keys.map(formatKey).join(', ')})` : label;
}
