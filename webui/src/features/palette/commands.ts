// Every action a person can run from the command palette, with its keyboard shortcut. Features
// register theirs here; the title bar's buttons are listed too (their labels carry the shortcut).
import { signal } from '@preact/signals';
import { titleActions } from '../workbench/panels';

export interface Command {
  id: string;
  label: string;
  /** As shown to people, e.g. "Ctrl+Shift+F". */
  shortcut?: string;
  run: () => void;
}

const registered = signal<Command[]>([]);

export function registerCommand(command: Command): void {
  registered.value = [...registered.value.filter((c) => c.id !== command.id), command];
}

const SHORTCUT_IN_LABEL = /^(.*?)\s*\(([^()]*(?:Ctrl|Shift|Alt|F\d)[^()]*)\)$/;

/** The registered commands and every title-bar action not already among them, by label. */
export function allCommands(): Command[] {
  const own = registered.value;
  const fromTitle = titleActions.value
    .filter((action) => !own.some((c) => c.id === action.id))
    .map((action) => {
      const match = SHORTCUT_IN_LABEL.exec(action.label);
      return { id: action.id, label: match ? match[1] : action.label, shortcut: match?.[2], run: action.run };
    });
  return [...own, ...fromTitle].sort((a, b) => a.label.localeCompare(b.label));
}
