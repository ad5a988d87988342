// The file tree's state: listings of the folders loaded so far (lazily, one level at a time),
// which folders are expanded, and which entry is selected.
import { signal } from '@preact/signals';
import { errorMessage } from '../api/client';
import { listDir } from '../api/files';
import type { FileEvent, FileEntry } from '../api/types';
import { notify } from '../ui/toast';
import { pid } from './session';

export const listings = signal<Record<string, FileEntry[]>>({});
export const expanded = signal<ReadonlySet<string>>(new Set());
export const selected = signal<string | null>(null);

export const parentOf = (path: string): string => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');
export const joinPath = (dir: string, name: string): string => (dir ? `${dir}/${name}` : name);

export async function loadDir(path: string): Promise<void> {
  try {
    const entries = await listDir(pid(), path);
    listings.value = { ...listings.value, [path]: entries };
  } catch (err) {
    // A folder that vanished simply drops out of the tree.
    const next = { ...listings.value };
    delete next[path];
    listings.value = next;
    if (path === '') notify(errorMessage(err));
  }
}

export function setExpanded(path: string, open: boolean): void {
  const next = new Set(expanded.value);
  if (open) next.add(path);
  else next.delete(path);
  expanded.value = next;
  if (open && !listings.value[path]) void loadDir(path);
}

export const toggleDir = (path: string): void => setExpanded(path, !expanded.value.has(path));

/** Reloads the root and every expanded folder (after a resync or on the refresh button). */
export async function reloadTree(): Promise<void> {
  const open = [...expanded.value].filter((p) => p !== '');
  await Promise.all([loadDir(''), ...open.map(loadDir)]);
}

export function restoreExpanded(paths: string[]): void {
  expanded.value = new Set(paths);
  for (const path of paths) void loadDir(path);
}

/** A change touches the listing of its parent folder, if that folder is loaded. */
export function onTreeChanges(changes: FileEvent[]): void {
  const dirs = new Set<string>();
  const gone = changes.filter((c) => c.kind === 'deleted').map((c) => c.path);
  for (const change of changes) {
    const dir = parentOf(change.path);
    if (listings.value[dir]) dirs.add(dir);
  }
  forget(gone);
  for (const dir of dirs) if (listings.value[dir]) void loadDir(dir);
}

/** A deleted folder (and what was below it) is dropped and collapsed, not read again: it is gone. */
function forget(paths: string[]): void {
  if (!paths.length) return;
  const under = (p: string) => paths.some((gone) => p === gone || p.startsWith(`${gone}/`));
  listings.value = Object.fromEntries(Object.entries(listings.value).filter(([dir]) => !under(dir)));
  if ([...expanded.value].some(under)) expanded.value = new Set([...expanded.value].filter((p) => !under(p)));
}
