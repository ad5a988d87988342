// The project page: the dock between a slim title bar and the status bar, wired to the tab's
// websocket for file events.
import type { DockviewApi } from 'dockview';
import { useLayoutEffect, useRef } from 'preact/hooks';
import { ContextMenuHost } from '../ui/contextMenu';
import { DialogHost } from '../ui/dialogs';
import { ToastHost } from '../ui/toast';
import { letMonacoRun } from '../monaco/load';
import { ConflictDialog } from '../features/editor/ConflictDialog';
import { onFilesChanged, recheckAll } from '../features/editor/diskSync';
import { closeDoc, getDoc, readForDoc } from '../features/editor/documents';
import { forgetEarlyEdits } from '../features/editor/EarlyEditor';
import { saveWithNotice } from '../features/editor/EditorPanel';
import { FILES_PANEL } from '../kernel/editorPanels';
import { expanded, loadDir, onTreeChanges, reloadTree, restoreExpanded } from '../kernel/treeStore';
import { titleWithKeys } from '../features/keybindings/store';
import { StatusBar } from '../features/status/StatusBar';
import { activePath } from '../kernel/active';
import { createDock, restoreLayout } from './dock';
import { dockReady, setDockApi, titleActions } from '../kernel/panels';
import { visibleEditorPaths } from '../kernel/prefetch';
import { session } from '../kernel/session';
import { loadUiState, persistUiState, registerStateSection } from '../kernel/uiState';

const TREE_WIDTH = 260;

/** The file tree on the left and an (empty) editor area next to it. */
function addDefaultPanels(api: DockviewApi): void {
  if (api.getPanel(FILES_PANEL)) return;
  const files = api.addPanel({ id: FILES_PANEL, component: FILES_PANEL, title: 'Files' });
  if (api.groups.length === 1) api.addGroup({ referencePanel: FILES_PANEL, direction: 'right' });
  files.group.api.setSize({ width: TREE_WIDTH });
}

function trackActiveEditor(api: DockviewApi): void {
  // The current file stays the last editor used, also while the file tree has the focus.
  api.onDidActivePanelChange(({ panel }) => {
    const path = panel?.params?.path;
    if (panel?.id.startsWith('editor:') && typeof path === 'string') activePath.value = path;
  });
  api.onDidRemovePanel((panel) => {
    const path = panel.params?.path;
    if (typeof path !== 'string' || !panel.id.startsWith('editor:')) return;
    // The person closed it (an unsaved one only after Don't save): its unsaved text goes too.
    closeDoc(path, { discard: true });
    forgetEarlyEdits(path);
    if (activePath.value === path) activePath.value = null;
  });
}

function wireSocket(): void {
  const { socket } = session();
  socket.on('files', (msg) => {
    if (msg.type !== 'changed') return;
    onTreeChanges(msg.data.changes);
    onFilesChanged(msg.data);
  });
  socket.on('sys', (msg) => {
    if (msg.type !== 'resync') return;
    void reloadTree();
    recheckAll();
  });
  socket.connect();
}

function onSaveKey(ev: KeyboardEvent): void {
  // Inside an editor Monaco's own save action has handled (and prevented) the key already.
  if (ev.defaultPrevented || ev.key.toLowerCase() !== 's' || !(ev.ctrlKey || ev.metaKey)) return;
  // The browser's "save page" is never what is meant here.
  ev.preventDefault();
  const doc = activePath.value ? getDoc(activePath.value) : undefined;
  if (doc) saveWithNotice(doc);
}

/** Runs `run` once the next frame is painted, or soon in a tab that paints none (hidden). */
function afterNextPaint(run: () => void): void {
  requestAnimationFrame(() => setTimeout(run));
  setTimeout(run, 200);
}

async function startWorkbench(element: HTMLElement): Promise<DockviewApi> {
  try {
    registerStateSection('expanded', () => [...expanded.value]);
    const saved = await loadUiState();
    const api = createDock(element);
    setDockApi(api);
    trackActiveEditor(api);
    restoreExpanded(saved.expanded ?? []);
    if (!restoreLayout(api, saved.layout)) api.clear();
    addDefaultPanels(api);
    persistUiState(api, [expanded]);
    dockReady.value = true;
    await Promise.allSettled(visibleEditorPaths(api.toJSON()).map(readForDoc));
    return api;
  } finally {
    afterNextPaint(letMonacoRun); // the files the layout shows are drawn first (EarlyEditor.tsx)
  }
}

export function ProjectPage({ version }: { version: string }) {
  const host = useRef<HTMLDivElement>(null);
  const { project } = session();
  // A layout effect: the dock starts before the first paint instead of a frame later.
  useLayoutEffect(() => {
    document.title = `${project.name} — MNN Workbench`;
    void loadDir('');
    wireSocket();
    void startWorkbench(host.current!);
    window.addEventListener('keydown', onSaveKey);
  }, []);
  return (
    <div class="workbench">
      <header class="titlebar">
        <a class="logo" href="/" target="_blank" rel="noopener" title="All projects">MNN Workbench</a>
        <span class="titlebar-project" data-testid="project-title">{project.name}</span>
        <span class="muted mono titlebar-path">{project.path}</span>
        <span class="status-spacer" />
        {titleActions.value.map((action) => (
          <button key={action.id} class="icon-btn" title={titleWithKeys(action.id, action.label)} aria-label={action.label}
            data-testid={`action-${action.id}`} disabled={!dockReady.value} onClick={action.run}>
            {action.icon ? <span class={`ci ci-${action.icon}`} aria-hidden="true" /> : action.glyph}
          </button>
        ))}
      </header>
      <div class="dock-host" ref={host} />
      <StatusBar version={version} />
      <ConflictDialog />
      <DialogHost />
      <ContextMenuHost />
      <ToastHost />
    </div>
  );
}
