// Ctrl+Tab: the editors (and the other work in the main area: diffs, tools, previews) in the
// order they were last used. Each press while Ctrl is held goes one further and shows that tab;
// letting go of the modifiers keeps it, as in VS Code. Ctrl+Shift+Tab goes back.
import { signal } from '@preact/signals';
import type { DockviewApi, IDockviewPanel } from 'dockview';
import { dock, registeredPanel } from '../../kernel/panels';

const isWork = (panel: IDockviewPanel): boolean => registeredPanel(panel.api.component)?.options.area === 'main';

/** Panel ids, the one used last first. */
let order: string[] = [];

export interface Switching {
  items: { id: string; title: string }[];
  index: number;
}

/** The list shown while Ctrl is held. */
export const switching = signal<Switching | null>(null);

function use(id: string): void {
  order = [id, ...order.filter((o) => o !== id)];
}

export function trackRecentEditors(api: DockviewApi): void {
  // The layout's visible tabs count as the most recent ones at first.
  const shown = api.groups.map((g) => g.activePanel).filter((p): p is IDockviewPanel => !!p && isWork(p));
  order = [...shown, ...api.panels.filter((p) => isWork(p) && !shown.includes(p))].map((p) => p.id);
  const active = api.activePanel;
  if (active && isWork(active)) use(active.id);
  api.onDidActivePanelChange(({ panel }) => {
    if (panel && isWork(panel) && !switching.value) use(panel.id);
  });
  api.onDidRemovePanel((panel) => {
    order = order.filter((id) => id !== panel.id);
  });
}

function candidates(): IDockviewPanel[] {
  const panels = dock().panels.filter(isWork);
  const rank = (p: IDockviewPanel) => {
    const at = order.indexOf(p.id);
    return at < 0 ? order.length : at;
  };
  return panels.sort((a, b) => rank(a) - rank(b));
}

function finish(): void {
  const now = switching.value;
  switching.value = null;
  window.removeEventListener('keyup', onKeyUp, true);
  window.removeEventListener('blur', finish);
  if (now) use(now.items[now.index].id);
}

function onKeyUp(ev: KeyboardEvent): void {
  if (!ev.ctrlKey && !ev.metaKey && !ev.altKey && !ev.shiftKey) finish();
}

/** One step through the recently used editors: 1 back in time, -1 forward. */
export function cycleEditors(step: 1 | -1): void {
  let now = switching.value;
  if (!now) {
    const items = candidates().map((p) => ({ id: p.id, title: p.title ?? p.id }));
    if (items.length < 2) return;
    now = { items, index: 0 };
    window.addEventListener('keyup', onKeyUp, true);
    window.addEventListener('blur', finish);
  }
  const count = now.items.length;
  const index = (now.index + step + count) % count;
  switching.value = { ...now, index };
  dock().getPanel(now.items[index].id)?.api.setActive();
}
