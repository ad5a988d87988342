// Hot exit (docs/ide.md, "Nothing lost on reload"): a dirty document's text goes to the server
// a moment after each edit and is dropped when the file is saved, reverted or closed without
// saving; the project page lists the files that have one and their documents come back with it.
// Closing the browser tab while an edit has not reached the server asks first.
import { signal } from '@preact/signals';
import { dropBackup, keepBackup, listBackups, type Backup, type BackupMark } from '../../api/backups';
import { errorMessage } from '../../api/client';
import { notify } from '../../ui/toast';
import { pid } from '../../kernel/session';
import type { Doc } from '../../kernel/doc';

const KEEP_DELAY_MS = 300;
// A body the browser still sends while the page unloads (its keepalive limit is 64 KiB).
const KEEPALIVE_BYTES = 60_000;

/** Paths with a backup not yet taken by their document, and the backups once fetched. */
const waiting = new Set<string>();
let fetched: Promise<Map<string, Backup>> = Promise.resolve(new Map());
/** Paths the server holds a backup of, or will once the requests queued for them are done. */
const kept = new Set<string>();
/** Paths with an edit the server has not acknowledged yet. */
const unsent = new Set<string>();
const timers = new Map<string, number>();
// One request at a time per path, in order: a drop never overtakes the keep before it.
const queues = new Map<string, Promise<void>>();
/** Bumped when a document was restored from its backup (the tabs' mark). */
export const restoredVersion = signal(0);
const restored = new Set<string>();
export const wasRestored = (path: string): boolean => restored.has(path);

function enqueue(path: string, send: () => Promise<void>): void {
  const next = (queues.get(path) ?? Promise.resolve()).then(send);
  queues.set(path, next);
  void next.finally(() => queues.get(path) === next && queues.delete(path));
}

/** Called once with the page's list; returns the paths to open in editors. */
export function startHotExit(marks: BackupMark[]): string[] {
  for (const mark of marks) {
    waiting.add(mark.path);
    kept.add(mark.path);
  }
  if (marks.length) {
    fetched = listBackups(pid()).then((list) => new Map(list.map((b) => [b.path, b])), (err) => {
      notify(`Could not read your unsaved changes from the server: ${errorMessage(err)}`);
      return new Map();
    });
  }
  window.addEventListener('beforeunload', (ev) => {
    if (!unsent.size) return;
    ev.preventDefault();
    ev.returnValue = '';
  });
  return marks.map((m) => m.path);
}

/** Whether ``path`` comes back with unsaved text (its editor waits for it). */
export const awaitsRestore = (path: string): boolean => waiting.has(path);

/** The backup of ``path``, once: its document restores it. */
export async function takeBackup(path: string): Promise<Backup | undefined> {
  if (!waiting.has(path)) return undefined;
  const found = (await fetched).get(path);
  waiting.delete(path);
  return found;
}

/** A document's backup put back into it: dirty, its disk text one Undo away. When the file
 * changed on disk since, the bar says so and a save asks (the etag is the one edited from). */
export function restore(doc: Doc, backup: Backup, diskText: string, diskEtag: string | null): boolean {
  const model = doc.model;
  if (!model) return false;
  if (backup.content === diskText && backup.base_etag === diskEtag) {
    forget(doc.path); // saved after all (a drop that did not arrive)
    return false;
  }
  model.pushEditOperations([], [{ range: model.getFullModelRange(), text: backup.content }], () => null);
  if (backup.base_etag !== diskEtag) {
    doc.etag = backup.base_etag;
    doc.disk.value = diskEtag === null ? { kind: 'deleted', content: null, etag: null }
      : { kind: 'modified', content: diskText, etag: diskEtag };
  }
  restored.add(doc.path);
  restoredVersion.value += 1;
  return true;
}

function send(doc: Doc): void {
  timers.delete(doc.path);
  const model = doc.model;
  if (!model || model.isDisposed() || doc.state.value === 'clean') return;
  const version = model.getAlternativeVersionId();
  const content = model.getValue();
  kept.add(doc.path); // from now on a drop is queued behind this keep
  enqueue(doc.path, async () => {
    try {
      await keepBackup(pid(), doc.path, content, doc.etag, content.length < KEEPALIVE_BYTES);
      if (model.isDisposed() || model.getAlternativeVersionId() === version) unsent.delete(doc.path);
    } catch (err) {
      notify(`Your unsaved changes of ${doc.path} are not kept on the server: ${errorMessage(err)}`);
    }
  });
}

/** A document's save state changed: keep its text soon, or drop the backup once clean. */
export function changed(doc: Doc): void {
  const state = doc.state.value;
  if (state === 'saving') return;
  window.clearTimeout(timers.get(doc.path));
  if (state === 'clean') {
    forget(doc.path);
    return;
  }
  unsent.add(doc.path);
  timers.set(doc.path, window.setTimeout(() => send(doc), KEEP_DELAY_MS));
}

/** The document was saved, reverted or closed without saving: its backup goes. */
export function forget(path: string): void {
  window.clearTimeout(timers.get(path));
  timers.delete(path);
  unsent.delete(path);
  restored.delete(path);
  restoredVersion.value += 1;
  if (!kept.delete(path)) return;
  enqueue(path, () => dropBackup(pid(), path).catch(() => undefined));
}
