// The file tree panel: lazily expanded folders, a toolbar, a context menu on every entry, F2 to
// rename, Delete to delete, drag and drop to move, and names coloured by their Git state.
import type { FileEntry } from '../../api/types';
import { openContextMenu, type MenuItem } from '../../ui/contextMenu';
import { openEditor, openToEdit } from '../../kernel/editor';
import { fileMenuItems } from '../../kernel/fileMenu';
import { isViewer } from '../../kernel/account';
import { session } from '../../kernel/session';
import { deleteEntry, download, moveEntry, newFile, newFolder, renameEntry, uploadInto } from './fileActions';
import { gitMarks } from './gitColors';
import { expanded, listings, parentOf, reloadTree, selected, toggleDir } from '../../kernel/treeStore';
import './tree.css';

const DRAG_TYPE = 'application/x-mnnwb-path';

function onKey(ev: KeyboardEvent, entry: FileEntry): void {
  if (ev.key === 'Enter') activate(entry);
  else if (ev.key === 'F2' && !isViewer.value) void renameEntry(entry);
  else if (ev.key === 'Delete' && !isViewer.value) void deleteEntry(entry);
  else return;
  ev.preventDefault();
}

/** Drag a row onto a folder (or the empty tree below the rows, for the root) to move it there. */
function dropTarget(dir: string) {
  const over = (ev: DragEvent) => {
    if (!ev.dataTransfer?.types.includes(DRAG_TYPE)) return;
    ev.preventDefault();
    ev.stopPropagation();
    (ev.currentTarget as HTMLElement).classList.add('drop-target');
  };
  const leave = (ev: DragEvent) => (ev.currentTarget as HTMLElement).classList.remove('drop-target');
  const drop = (ev: DragEvent) => {
    if (isViewer.value) return;
    leave(ev);
    const path = ev.dataTransfer?.getData(DRAG_TYPE);
    if (!path) return;
    ev.preventDefault();
    ev.stopPropagation();
    void moveEntry(path, dir);
  };
  return { onDragOver: over, onDragEnter: over, onDragLeave: leave, onDrop: drop };
}

function folderItems(dir: string): MenuItem[] {
  if (isViewer.value) return [];
  return [
    { label: 'New file…', testid: 'menu-new-file', action: () => void newFile(dir) },
    { label: 'New folder…', testid: 'menu-new-folder', action: () => void newFolder(dir) },
    { label: 'Upload files…', testid: 'menu-upload', action: () => uploadInto(dir) },
  ];
}

function entryItems(entry: FileEntry): MenuItem[] {
  // A viewer sees no action that would change the project.
  const common: MenuItem[] = isViewer.value ? [] : [
    { label: 'Rename…', testid: 'menu-rename', action: () => void renameEntry(entry) },
    { label: 'Delete', testid: 'menu-delete', action: () => void deleteEntry(entry), danger: true },
  ];
  if (entry.type === 'dir') return [...folderItems(entry.path), ...fileMenuItems(entry), ...common];
  return [
    { label: 'Open', testid: 'menu-open', action: () => openEditor(entry.path) },
    { label: 'Download', testid: 'menu-download', action: () => download(entry) },
    ...fileMenuItems(entry),
    ...common,
  ];
}

/** A click or Enter opens a file in the preview tab, as in VS Code; a double click keeps it. */
function activate(entry: FileEntry): void {
  selected.value = entry.path;
  if (entry.type === 'dir') toggleDir(entry.path);
  else openEditor(entry.path, { preview: true });
}

function TreeRow({ entry, depth }: { entry: FileEntry; depth: number }) {
  const isDir = entry.type === 'dir';
  const open = isDir && expanded.value.has(entry.path);
  const git = gitMarks.value.get(entry.path);
  return (
    <>
      <div
        class={`tree-row${selected.value === entry.path ? ' selected' : ''}${git ? ` git-${git}` : ''}`}
        data-git={git ?? ''}
        draggable={!isViewer.value}
        onDragStart={(ev) => ev.dataTransfer?.setData(DRAG_TYPE, entry.path)}
        {...dropTarget(isDir ? entry.path : parentOf(entry.path))}
        style={{ paddingLeft: `${8 + depth * 14}px` }}
        role="treeitem"
        aria-expanded={isDir ? open : undefined}
        data-testid="tree-item"
        data-path={entry.path}
        data-type={entry.type}
        tabIndex={0}
        onClick={() => activate(entry)}
        onDblClick={() => !isDir && openToEdit(entry.path)}
        onKeyDown={(ev) => onKey(ev, entry)}
        onContextMenu={(ev) => {
          selected.value = entry.path;
          openContextMenu(ev, entryItems(entry));
        }}
      >
        <span class={isDir ? `twisty ${open ? 'open' : ''}` : 'twisty none'} aria-hidden="true" />
        <span class={isDir ? 'icon icon-dir' : 'icon icon-file'} aria-hidden="true" />
        <span class="tree-name">{entry.name}</span>
      </div>
      {open && <TreeLevel dir={entry.path} depth={depth + 1} />}
    </>
  );
}

function TreeLevel({ dir, depth }: { dir: string; depth: number }) {
  const entries = listings.value[dir];
  if (!entries) return <div class="tree-note" style={{ paddingLeft: `${22 + depth * 14}px` }}>Loading…</div>;
  if (entries.length === 0 && depth > 0) return <div class="tree-note" style={{ paddingLeft: `${22 + depth * 14}px` }}>empty</div>;
  return (
    <>
      {entries.map((e) => <TreeRow key={e.path} entry={e} depth={depth} />)}
    </>
  );
}

function ToolButton(props: { label: string; testid: string; glyph: string; onClick: () => void }) {
  return (
    <button class="icon-btn" title={props.label} aria-label={props.label} data-testid={props.testid} onClick={props.onClick}>
      {props.glyph}
    </button>
  );
}

/** Where the toolbar's New file, New folder and Upload put things, as in VS Code: the selected
 * folder, or the folder of the selected file; the project's top without a selection. */
export function selectedFolder(): string {
  const path = selected.value;
  if (!path) return '';
  const entry = listings.value[parentOf(path)]?.find((e) => e.path === path);
  return entry?.type === 'dir' ? path : parentOf(path);
}

export function FileTree() {
  return (
    <div class="file-tree" data-testid="file-tree">
      <div class="panel-toolbar">
        <span class="panel-toolbar-title">{session().project.name}</span>
        {!isViewer.value && (
          <>
            <ToolButton label="New file" testid="tree-new-file" glyph="+" onClick={() => void newFile(selectedFolder())} />
            <ToolButton label="New folder" testid="tree-new-folder" glyph="⊞" onClick={() => void newFolder(selectedFolder())} />
            <ToolButton label="Upload files" testid="tree-upload" glyph="⇪" onClick={() => uploadInto(selectedFolder())} />
          </>
        )}
        <ToolButton label="Refresh" testid="tree-refresh" glyph="↻" onClick={() => void reloadTree()} />
      </div>
      <div class="tree-body" role="tree" data-testid="tree-body" onContextMenu={(ev) => openContextMenu(ev, folderItems(''))} {...dropTarget('')}>
        <TreeLevel dir="" depth={0} />
      </div>
    </div>
  );
}
