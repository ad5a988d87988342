// Every action a person can run from the command palette, with its category and default keys.
// Features register theirs here; the title bar's buttons are commands too. The keys a command
// really has (a person's own, else its defaults) and the dispatcher that runs them live in
// features/keybindings/, which provides them here (provideCommandKeys) for the palette.
import { computed, signal } from '@preact/signals';
import { parseKeys } from './keys';
import { titleActions } from './panels';

export interface Command {
  id: string;
  label: string;
  /** Shown before the label ("View: Toggle side bar") and searched; the feature's name. */
  category?: string;
  /**
   * The default key or keys, e.g. "Ctrl+Shift+F", "Ctrl+K Ctrl+S" (a chord), "F1, Ctrl+Shift+P"
   * (two keys). Ctrl stands for Ctrl, and for Command on macOS. A person can change them.
   */
  shortcut?: string | string[];
  /**
   * The default key is handled where it is pressed (the editor's own Ctrl+S): the dispatcher runs
   * the command only on a key a person gave it, and then keeps the default key from acting.
   */
  ownKey?: boolean;
  /** False while the command cannot run: it is left out of the palette and its key acts as if unbound. */
  enabled?: () => boolean;
  run: () => void;
}

const registered = signal<Command[]>([]);

export function registerCommand(command: Command): void {
  registered.value = [...registered.value.filter((c) => c.id !== command.id), command];
}

const SHORTCUT_IN_LABEL = /^(.*?)\s*\(([^()]*(?:Ctrl|Shift|Alt|F\d)[^()]*)\)$/;

const byTitle = (c: Command) => `${c.category ?? ''}: ${c.label}`;

/** The registered commands and every title-bar action not already among them, by category and label. */
export const commandList = computed<Command[]>(() => {
  const own = registered.value;
  const fromTitle = titleActions.value
    .filter((action) => !own.some((c) => c.id === action.id))
    .map((action): Command => {
      const match = SHORTCUT_IN_LABEL.exec(action.label);
      return {
        id: action.id, label: match ? match[1] : action.label, category: action.category ?? 'View',
        shortcut: action.shortcut ?? match?.[2], run: action.run,
      };
    });
  return [...own, ...fromTitle].sort((a, b) => byTitle(a).localeCompare(byTitle(b)));
});

export const allCommands = (): Command[] => commandList.value;

export const commandById = (id: string): Command | undefined => commandList.value.find((c) => c.id === id);

/** The command's title as the palette shows it: "Category: Label". */
export const commandTitle = (c: Command): string => (c.category ? `${c.category}: ${c.label}` : c.label);

export const isEnabled = (c: Command): boolean => !c.enabled || c.enabled();

/** Runs the command `id`; false when there is none or it cannot run now. */
export function runCommand(id: string): boolean {
  const command = commandById(id);
  if (!command || !isEnabled(command)) return false;
  command.run();
  return true;
}

type KeysOf = (command: Command) => string[];

/** A command's default keys, until the keybindings feature provides the keys a person set. */
let keysProvider: KeysOf = (command) => parseKeys(command.shortcut);

export function provideCommandKeys(keysOf: KeysOf): void {
  keysProvider = keysOf;
}

/** The keys `command` really has: a person's own, else its defaults. */
export const commandKeys = (command: Command): string[] => keysProvider(command);
