// The panel registry: features add dock panels (file tree, editors, source control, training, …)
// by name, and the shell renders whatever is registered without knowing about them.
import { signal } from '@preact/signals';
import type { ComponentChild } from 'preact';
import type { AddPanelOptions, DockviewApi, DockviewGroupPanel, DockviewPanelApi } from 'dockview';

export interface PanelProps {
  api: DockviewPanelApi;
  containerApi: DockviewApi;
  params: Record<string, unknown>;
}

export type PanelFactory = (props: PanelProps) => ComponentChild;

export interface PanelOptions {
  /** The name of a tab renderer registered with registerTab; the default tab otherwise. */
  tab?: string;
  /** 'main': the panel is work shown in the editor area (files, diffs, tools, previews). */
  area?: 'main';
}

export interface RegisteredPanel {
  factory: PanelFactory;
  options: PanelOptions;
}

const panels = new Map<string, RegisteredPanel>();
const tabs = new Map<string, PanelFactory>();

/** Registers a dock panel; wrap heavy ones in lazyPanel() so their code loads on first show. */
export function registerPanel(name: string, factory: PanelFactory, options: PanelOptions = {}): void {
  panels.set(name, { factory, options });
}

export function registerTab(name: string, factory: PanelFactory): void {
  tabs.set(name, factory);
}

export const registeredPanel = (name: string): RegisteredPanel | undefined => panels.get(name);
export const registeredTab = (name: string): PanelFactory | undefined => tabs.get(name);

/** A button in the title bar, e.g. to open a feature's panel. */
export interface TitleAction {
  id: string;
  label: string;
  /** A character for the palette and places without the icon font. */
  glyph: string;
  /** Its icon in the title bar: a codicon's name (styles/codicons.css). */
  icon?: string;
  /** Its default key (see Command in kernel/commands.ts); the title bar's tooltip shows the key it has. */
  shortcut?: string;
  /** Its category on the palette; "View" when left out. */
  category?: string;
  run: () => void;
}

export const titleActions = signal<TitleAction[]>([]);

export function registerTitleAction(action: TitleAction): void {
  titleActions.value = [...titleActions.value.filter((a) => a.id !== action.id), action];
}

let dockApi: DockviewApi | null = null;
/** True once the saved layout is restored: a title action taken before would be lost with it. */
export const dockReady = signal(false);

export function setDockApi(api: DockviewApi | null): void {
  dockApi = api;
}

/**
 * Holds the keyboard shortcuts pressed while the saved layout is restored and replays them once
 * it is: every shortcut acts on the dock, and one taken before would be lost with it. Call before
 * any feature adds its own window listener, so this capture listener runs first.
 */
export function holdShortcutsUntilDockReady(): void {
  const held: KeyboardEvent[] = [];
  const hold = (ev: KeyboardEvent): void => {
    const shortcut = ev.ctrlKey || ev.metaKey || ev.altKey || /^F\d+$/.test(ev.key);
    if (dockReady.value || !shortcut) return;
    ev.preventDefault();
    ev.stopImmediatePropagation();
    held.push(new KeyboardEvent('keydown', ev));
  };
  window.addEventListener('keydown', hold, { capture: true });
  const stop = dockReady.subscribe((ready) => {
    if (!ready) return;
    window.removeEventListener('keydown', hold, { capture: true });
    queueMicrotask(() => stop());
    for (const ev of held.splice(0)) window.dispatchEvent(ev);
  });
}

export function dock(): DockviewApi {
  if (!dockApi) throw new Error('the dock is not ready');
  return dockApi;
}

/** Shows the panel `id`, adding it first when it is not in the dock yet. */
export function showPanel(options: AddPanelOptions): void {
  const api = dock();
  const existing = api.getPanel(options.id);
  if (existing) {
    existing.api.setActive();
    revealGroup(existing.group);
    return;
  }
  const tab = registeredPanel(options.component)?.options.tab;
  revealGroup(api.addPanel({ ...options, tabComponent: options.tabComponent ?? tab } as AddPanelOptions).group);
}

/** A group the side bar or panel toggle hid (Ctrl+B, Ctrl+J) comes back when a panel in it is shown. */
function revealGroup(group: DockviewGroupPanel): void {
  if (!group.api.isVisible) group.api.setVisible(true);
}
