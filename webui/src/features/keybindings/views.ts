// Ctrl+B and Ctrl+J: hide and show the side bar (the groups beside the main area: files, source
// control, search, run and debug, …) and the panel (the groups under it: terminals, consoles,
// problems). Which is which is read from where a group is, so a panel dragged elsewhere
// counts where it now is. Hidden groups stay hidden in the saved layout, and which toggle hid
// each one is kept in the UI state, so the same key brings them back after a reload.
import type { DockviewGroupPanel } from 'dockview';
import { isMainGroup } from '../../kernel/areas';
import { dock } from '../../kernel/panels';
import { loadUiState, registerStateSection, scheduleSave } from '../../kernel/uiState';

export type Bar = 'side' | 'bottom';

/** Group id → the toggle that hid it. */
let hidden: Record<string, Bar> = {};

/** A group under a main group is in the panel; any other group that is not main is the side bar. */
function barOf(group: DockviewGroupPanel): Bar | null {
  if (isMainGroup(group)) return null;
  const box = group.element.getBoundingClientRect();
  const under = dock().groups.filter((g) => g !== group && isMainGroup(g) && g.api.isVisible).some((main) => {
    const m = main.element.getBoundingClientRect();
    return box.top >= m.bottom - 2 && box.left < m.right && box.right > m.left;
  });
  return under ? 'bottom' : 'side';
}

/** Hides the side bar or the panel when any of it shows, else shows what it hid (or `open`s one). */
export function toggleBar(bar: Bar, open: () => void): void {
  const api = dock();
  const shown = api.groups.filter((g) => g.api.isVisible && barOf(g) === bar);
  if (shown.length) {
    for (const group of shown) {
      hidden = { ...hidden, [group.id]: bar };
      group.api.setVisible(false);
    }
  } else {
    // A hidden group nobody recorded (an older layout) belongs to the side bar.
    const back = api.groups.filter((g) => !g.api.isVisible && (hidden[g.id] ?? 'side') === bar);
    for (const group of back) group.api.setVisible(true);
    if (!back.length) open();
  }
  const present = new Set(api.groups.filter((g) => !g.api.isVisible).map((g) => g.id));
  hidden = Object.fromEntries(Object.entries(hidden).filter(([id]) => present.has(id)));
  scheduleSave(api);
}

export async function loadHiddenBars(): Promise<void> {
  registerStateSection('hiddenBars', () => hidden);
  const saved = ((await loadUiState()) as { hiddenBars?: unknown }).hiddenBars;
  if (saved && typeof saved === 'object') {
    hidden = Object.fromEntries(Object.entries(saved).filter(([, bar]) => bar === 'side' || bar === 'bottom')) as Record<string, Bar>;
  }
}
