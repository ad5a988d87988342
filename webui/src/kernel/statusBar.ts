// The status bar is open to every feature: a feature's item (the git branch, the problem counts,
// the team's presence) is registered here into one of the bar's places, and the bar
// (features/status/StatusBar.tsx) draws what is registered without importing those features.
// The app registers them (app/features.ts).
import type { FunctionComponent } from 'preact';

/** Where in the bar: after the connection, after the file's save state, before the version. */
export type StatusSlot = 'after-connection' | 'after-save' | 'before-version';

interface StatusItem {
  id: string;
  slot: StatusSlot;
  component: FunctionComponent;
}

const items: StatusItem[] = [];

/** Adds `component` to `slot`, after the items registered there before it. */
export function registerStatusItem(id: string, slot: StatusSlot, component: FunctionComponent): void {
  items.push({ id, slot, component });
}

/** The items of `slot`, in the order they were registered. */
export const statusItems = (slot: StatusSlot): StatusItem[] => items.filter((item) => item.slot === slot);
