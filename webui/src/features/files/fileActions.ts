// What the file tree's context menu and toolbar do.
import { errorMessage } from '../../api/client';
import { fileOp, rawUrl, restoreFromTrash, uploadFiles } from '../../api/files';
import type { FileEntry } from '../../api/types';
import { confirmDialog, promptDialog } from '../../ui/dialogs';
import { notify } from '../../ui/toast';
import { closeDoc, getDoc, openEditor } from '../../kernel/editor';
import { dock } from '../../kernel/panels';
import { pid } from '../../kernel/session';
import { joinPath, loadDir, parentOf, selected, setExpanded } from '../../kernel/treeStore';

async function run<T>(work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work();
  } catch (err) {
    notify(errorMessage(err));
    return undefined;
  }
}

/** Expands the folders down to a new path (made on the way, for `src/a/b.py`) and shows it. */
async function showNew(dir: string, path: string): Promise<void> {
  for (let folder = parentOf(path); folder && folder !== dir; folder = parentOf(folder)) setExpanded(folder, true);
  if (dir) setExpanded(dir, true);
  await loadDir(dir);
  await loadDir(parentOf(path));
  selected.value = path;
}

export async function newFile(dir: string): Promise<void> {
  const name = await promptDialog('New file', `Name (in /${dir}; a/b.py makes the folders)`, '', 'Create');
  if (!name) return;
  const created = await run(() => fileOp(pid(), 'create', joinPath(dir, name)));
  if (!created) return;
  await showNew(dir, created.path);
  openEditor(created.path);
}

export async function newFolder(dir: string): Promise<void> {
  const name = await promptDialog('New folder', `Name (in /${dir})`, '', 'Create');
  if (!name) return;
  const created = await run(() => fileOp(pid(), 'mkdir', joinPath(dir, name)));
  if (created) await showNew(dir, created.path);
}

/** Editors open on a path (or inside a folder) that is about to move or disappear. */
function editorsUnder(path: string) {
  return dock().panels.filter((p) => {
    const open = p.params?.path;
    return typeof open === 'string' && (open === path || open.startsWith(`${path}/`));
  });
}

function hasUnsaved(path: string): boolean {
  return editorsUnder(path).some((p) => getDoc(String(p.params?.path))?.state.value !== 'clean');
}

function closeEditorsUnder(path: string): void {
  for (const panel of editorsUnder(path)) {
    closeDoc(String(panel.params?.path), { discard: true });
    panel.api.close();
  }
}

export async function renameEntry(entry: FileEntry): Promise<void> {
  if (hasUnsaved(entry.path)) {
    notify('Save or close the open files in it first.');
    return;
  }
  const name = await promptDialog(`Rename ${entry.name}`, 'New name', entry.name, 'Rename');
  if (!name || name === entry.name) return;
  const to = joinPath(parentOf(entry.path), name);
  const moved = await run(() => fileOp(pid(), 'rename', entry.path, to));
  if (!moved) return;
  const reopen = entry.type === 'file' && editorsUnder(entry.path).length > 0;
  closeEditorsUnder(entry.path);
  await loadDir(parentOf(entry.path));
  if (reopen) openEditor(moved.path);
}

/** Moves a file or folder into another folder ('' is the project's root), as a drop does. */
export async function moveEntry(path: string, dir: string): Promise<void> {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const to = joinPath(dir, name);
  if (to === path || dir === path || dir.startsWith(`${path}/`)) return;
  if (hasUnsaved(path)) {
    notify('Save or close the open files in it first.');
    return;
  }
  const reopen = editorsUnder(path).some((p) => p.params?.path === path);
  const moved = await run(() => fileOp(pid(), 'rename', path, to));
  if (!moved) return;
  closeEditorsUnder(path);
  await Promise.all([loadDir(parentOf(path)), loadDir(dir)]);
  if (dir) setExpanded(dir, true);
  selected.value = moved.path;
  if (reopen) openEditor(moved.path);
}

export async function deleteEntry(entry: FileEntry): Promise<void> {
  const what = entry.type === 'dir' ? 'folder and everything in it' : 'file';
  const answer = await confirmDialog(`Delete ${entry.name}?`, `The ${what} goes to the project's trash (Undo brings it back).`, { confirm: 'Delete', danger: true });
  if (!answer.ok) return;
  const done = await run(() => fileOp(pid(), 'delete', entry.path));
  if (!done) return;
  closeEditorsUnder(entry.path);
  await loadDir(parentOf(entry.path));
  const trashId = done.trash_id;
  if (trashId) notify(`Deleted ${entry.path}.`, 'info', { label: 'Undo', run: () => void undoDelete(trashId, entry.path) });
}

async function undoDelete(trashId: string, path: string): Promise<void> {
  const restored = await run(() => restoreFromTrash(pid(), trashId));
  if (!restored) return;
  await loadDir(parentOf(path));
  notify(`Restored ${restored.path}.`, 'info');
}

export function uploadInto(dir: string): void {
  const input = document.createElement('input');
  input.type = 'file';
  input.multiple = true;
  input.dataset.testid = 'upload-input';
  input.style.display = 'none';
  input.addEventListener('change', async () => {
    const files = [...(input.files ?? [])];
    input.remove();
    if (files.length === 0) return;
    const uploaded = await run(() => uploadFiles(pid(), dir, files));
    if (!uploaded) return;
    if (dir) setExpanded(dir, true);
    await loadDir(dir);
    notify(`Uploaded ${uploaded.length} file${uploaded.length === 1 ? '' : 's'}.`, 'info');
  });
  document.body.append(input);
  input.click();
}

export function download(entry: FileEntry): void {
  const link = document.createElement('a');
  link.href = rawUrl(pid(), entry.path);
  link.download = entry.name;
  document.body.append(link);
  link.click();
  link.remove();
}
