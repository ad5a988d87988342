// Runs from the entry chunk, before the workbench's code (dockview) has downloaded: queues
// Monaco's load (it starts once the workbench has drawn the open files, monaco/load.ts) and
// hands out the saved layout and the files its visible editors show — sent with the page,
// or fetched here — so none of it waits for the workbench's code.
import { getUiState, readFile } from '../api/files';
import type { FileContent, PageConfig } from '../api/types';
import { loadMonaco } from '../monaco/load';

export interface SavedState {
  layout?: unknown;
  expanded?: string[];
}

let savedState: Promise<SavedState> | null = null;
const contents = new Map<string, Promise<FileContent>>();

/** Paths of the editors a saved dockview layout shows: the active view of each group
 * (`visible_editor_paths` in server/web/first_view.py walks it the same way). */
export function visibleEditorPaths(layout: unknown): string[] {
  if (!layout || typeof layout !== 'object') return [];
  const panels = (layout as { panels?: Record<string, { params?: { path?: unknown } }> }).panels ?? {};
  const active: string[] = [];
  const walk = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    const view = (node as { activeView?: unknown }).activeView;
    if (typeof view === 'string') active.push(view);
    Object.values(node).forEach(walk);
  };
  walk((layout as { grid?: unknown }).grid);
  return active
    .filter((id) => id.startsWith('editor:'))
    .map((id) => panels[id]?.params?.path)
    .filter((path): path is string => typeof path === 'string');
}

export function prefetchWorkbench(pid: string, first?: PageConfig['first_view']): void {
  // Not part of the workbench's own chunk, nor preloaded by the shell: the dock and the open
  // files are drawn first, and the editors are created when Monaco has run.
  void loadMonaco();
  // The page usually carries the layout and its files (server/web/first_view.py); a file it
  // left out (too large, gone) is asked for here.
  savedState = first ? Promise.resolve(first.ui_state as SavedState)
    : getUiState(pid).then((res) => res.state as SavedState, () => ({}));
  void savedState.then((state) => {
    for (const path of visibleEditorPaths(state.layout)) {
      const sent = first?.files[path];
      const content = sent ? Promise.resolve(sent) : readFile(pid, path);
      content.catch(() => undefined);
      contents.set(path, content);
    }
  });
}

/** The saved UI state, fetched early when the entry started the prefetch. */
export const prefetchedState = (): Promise<SavedState> | null => savedState;

/** A file's content fetched early, handed out once: later reads must go to the server. */
export function takePrefetchedContent(path: string): Promise<FileContent> | undefined {
  const content = contents.get(path);
  contents.delete(path);
  return content;
}
