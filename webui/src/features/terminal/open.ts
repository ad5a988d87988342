// Terminals open together below the editor area, each as its own tab: Terminal 1, 2, …
import type { AddPanelPositionOptions } from 'dockview';
import { widestGroup } from '../../kernel/areas';
import { dock, showPanel } from '../../kernel/panels';

export const TERMINAL_PANEL = 'terminal';
const BOTTOM_SHARE = 0.32;

function below(): AddPanelPositionOptions | undefined {
  const sibling = dock().panels.find((p) => p.id.startsWith(`${TERMINAL_PANEL}:`));
  if (sibling) return { referencePanel: sibling };
  const area = widestGroup();
  return area ? { referenceGroup: area, direction: 'below' } : undefined;
}

function nextNumber(): number {
  const used = new Set(dock().panels.filter((p) => p.id.startsWith(`${TERMINAL_PANEL}:`)).map((p) => p.id));
  let n = 1;
  while (used.has(`${TERMINAL_PANEL}:${n}`)) n += 1;
  return n;
}

/** A new terminal (a new shell). */
export function openTerminal(): void {
  const n = nextNumber();
  const first = !dock().panels.some((p) => p.id.startsWith(`${TERMINAL_PANEL}:`));
  showPanel({
    id: `${TERMINAL_PANEL}:${n}`,
    component: TERMINAL_PANEL,
    title: `Terminal ${n}`,
    params: {},
    position: below(),
    initialHeight: first ? Math.round(dock().height * BOTTOM_SHARE) : undefined,
  });
}

/** The terminals' group when there is one, else a new terminal. */
export function toggleTerminal(): void {
  const existing = dock().panels.find((p) => p.id.startsWith(`${TERMINAL_PANEL}:`));
  if (existing) existing.api.setActive();
  else openTerminal();
}
