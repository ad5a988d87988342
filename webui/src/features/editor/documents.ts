// Open documents of this tab: one Monaco model per file, its etag, dirty and save state, plus the
// two ways a file can diverge from disk — a 409 on save and a change made elsewhere.
import { signal } from '@preact/signals';
import { ApiError, errorMessage } from '../../api/client';
import { readFile, writeFile } from '../../api/files';
import type { ConflictBody, FileContent } from '../../api/types';
import { loadMonaco } from '../../monaco/load';
import { languageFor } from '../../monaco/options';
import { takePrefetchedContent } from '../../kernel/prefetch';
import { docsVersion, type BeforeSave } from '../../kernel/editor';
import { pid } from '../../kernel/session';
import type { Doc, SaveState } from '../../kernel/doc';
import { changed, forget, restore, takeBackup } from './hotExit';

export type { DiskChange, Doc, SaveState } from '../../kernel/doc';

export interface Conflict {
  doc: Doc;
  mine: string;
  theirs: string;
  theirsEtag: string;
}

const docs = new Map<string, Promise<Doc>>();
const loaded = new Map<string, Doc>();
export const conflict = signal<Conflict | null>(null);
/** Bumped whenever any document's save state changes, for the tabs and the status bar. */
export { docsVersion };

function setState(doc: Doc, state: SaveState): void {
  doc.state.value = state;
  docsVersion.value += 1;
  changed(doc);
}

function trackDirty(doc: Doc): void {
  doc.model?.onDidChangeContent(() => {
    if (doc.state.value === 'saving') return;
    setState(doc, doc.model!.getAlternativeVersionId() === doc.savedVersion ? 'clean' : 'dirty');
  });
}

const reads = new Map<string, Promise<FileContent>>();

/** The file as read for its document: the editor panel shows it before Monaco has loaded. */
export function readForDoc(path: string): Promise<FileContent> {
  let read = reads.get(path);
  if (!read) {
    read = takePrefetchedContent(path) ?? readFile(pid(), path);
    read.catch(() => reads.delete(path));
    reads.set(path, read);
  }
  return read;
}

async function load(path: string): Promise<Doc> {
  const [file, backup] = await Promise.all([readForDoc(path), takeBackup(path)]);
  // Monaco is already on its way (the entry asked for it); a binary file does not wait for it.
  const monaco = file.binary ? null : (await loadMonaco()).monaco;
  // Named by its path, so lists of locations across files (references, features/lsp/) show it.
  const model = monaco?.editor.createModel(file.content ?? '', languageFor(path), monaco.Uri.from({ scheme: 'project', path: `/${path}` })) ?? null;
  const doc: Doc = {
    path,
    model,
    binary: file.binary,
    size: file.size,
    encoding: file.encoding,
    etag: file.etag,
    savedVersion: model?.getAlternativeVersionId() ?? 0,
    state: signal('clean'),
    disk: signal(null),
  };
  trackDirty(doc);
  if (backup && restore(doc, backup, file.content ?? '', file.etag)) setState(doc, 'dirty');
  loaded.set(path, doc);
  reads.delete(path); // read again when the file is opened again after closing
  return doc;
}

export function openDoc(path: string): Promise<Doc> {
  let pending = docs.get(path);
  if (!pending) {
    pending = load(path);
    pending.catch(() => docs.delete(path));
    docs.set(path, pending);
  }
  return pending;
}

/** The editor closed; ``discard``: without saving its edits (their backup goes too). */
export function closeDoc(path: string, { discard = false } = {}): void {
  if (discard) forget(path);
  loaded.get(path)?.model?.dispose();
  loaded.delete(path);
  docs.delete(path);
  docsVersion.value += 1;
}

export const getDoc = (path: string): Doc | undefined => loaded.get(path);
export const openDocs = (): Doc[] => [...loaded.values()];

/** Replaces the model's text with what is on disk, keeping undo history, and marks it clean. */
export function applyDiskContent(doc: Doc, content: string, etag: string): void {
  const model = doc.model;
  if (!model) return;
  if (model.getValue() !== content) {
    model.pushEditOperations([], [{ range: model.getFullModelRange(), text: content }], () => null);
  }
  doc.etag = etag;
  doc.savedVersion = model.getAlternativeVersionId();
  doc.disk.value = null;
  setState(doc, 'clean');
}

async function put(doc: Doc, content: string, etag: string | null): Promise<void> {
  const version = doc.model!.getAlternativeVersionId();
  setState(doc, 'saving');
  try {
    const saved = await writeFile(pid(), doc.path, content, etag ?? undefined);
    doc.etag = saved.etag;
    doc.savedVersion = version;
    doc.disk.value = null;
    setState(doc, doc.model!.getAlternativeVersionId() === version ? 'clean' : 'dirty');
  } catch (err) {
    setState(doc, 'dirty');
    if (err instanceof ApiError && err.code === 'conflict') {
      const current = (err.body as unknown as ConflictBody).current;
      conflict.value = { doc, mine: content, theirs: current.content ?? '', theirsEtag: current.etag };
      return;
    }
    setState(doc, 'error');
    throw new Error(`Could not save ${doc.path}: ${errorMessage(err)}`);
  }
}

const beforeSave: BeforeSave[] = [];

/** Runs before a person's save (Ctrl+S), e.g. formatting on save (features/lsp/format.ts). */
export function registerBeforeSave(hook: BeforeSave): void {
  beforeSave.push(hook);
}

// A document's save under way (its hooks and its write), and the one save asked for meanwhile.
const running = new Map<Doc, Promise<void>>();
const queued = new Map<Doc, Promise<void>>();

async function runSave(doc: Doc, hooks: boolean): Promise<void> {
  if (hooks) for (const hook of beforeSave) await hook(doc);
  await put(doc, doc.model!.getValue(), doc.etag);
}

/** `hooks: false` for a save that is not the person's own edit (a rename writing its files).
 * A save asked for while one is under way (an undo and Ctrl+S before the last write came back)
 * runs after it, once however often it was asked, and only if the text changed since (the
 * document still open, no conflict waiting for the person). */
export function saveDoc(doc: Doc, { hooks = true } = {}): Promise<void> {
  if (!doc.model) return Promise.resolve();
  const current = running.get(doc);
  if (current) {
    let next = queued.get(doc);
    if (!next) {
      next = current.catch(() => undefined).then(() => {
        queued.delete(doc);
        // Not after a conflict: the dialog it opened decides what is written.
        const wanted = loaded.get(doc.path) === doc && doc.state.value !== 'clean' && conflict.value?.doc !== doc;
        return wanted ? saveDoc(doc, { hooks }) : undefined;
      });
      queued.set(doc, next);
    }
    return next;
  }
  const save = runSave(doc, hooks).finally(() => running.delete(doc));
  running.set(doc, save);
  return save;
}

/** Conflict resolution: overwrite the disk with my text, or take theirs into the editor. */
export async function resolveConflict(choice: 'mine' | 'theirs'): Promise<void> {
  const current = conflict.value;
  if (!current) return;
  conflict.value = null;
  const { doc } = current;
  if (choice === 'theirs') {
    applyDiskContent(doc, current.theirs, current.theirsEtag);
    return;
  }
  await put(doc, doc.model!.getValue(), current.theirsEtag);
}
