// Keeps open documents true to disk: files changed elsewhere reload when clean and ask when dirty.
import { clientId, errorMessage } from '../../api/client';
import { readFile } from '../../api/files';
import type { FileEvent, FilesChanged } from '../../api/types';
import { notify } from '../../ui/toast';
import { pid } from '../../kernel/session';
import { applyDiskContent, getDoc, openDocs, type Doc } from './documents';

async function reconcile(doc: Doc, change: FileEvent): Promise<void> {
  if (change.kind === 'deleted') {
    doc.disk.value = { kind: 'deleted', content: null, etag: null };
    return;
  }
  if (change.etag && change.etag === doc.etag) return;
  const file = await readFile(pid(), doc.path);
  if (file.etag === doc.etag || file.binary) return;
  const content = file.content ?? '';
  if (doc.state.value === 'clean' || doc.model?.getValue() === content) {
    applyDiskContent(doc, content, file.etag);
  } else {
    doc.disk.value = { kind: 'modified', content, etag: file.etag };
  }
}

export function onFilesChanged(event: FilesChanged): void {
  if (event.client === clientId) return;
  for (const change of event.changes) {
    const doc = getDoc(change.path);
    if (doc) reconcile(doc, change).catch((err) => notify(errorMessage(err)));
  }
}

/** After an incomplete replay nothing can be trusted: compare every open file with disk. */
export function recheckAll(): void {
  for (const doc of openDocs()) {
    reconcile(doc, { kind: 'modified', path: doc.path }).catch(() => {
      doc.disk.value = { kind: 'deleted', content: null, etag: null };
    });
  }
}

/** The user's answer to a "changed on disk" prompt on a dirty file. */
export function answerDiskChange(doc: Doc, choice: 'reload' | 'keep'): void {
  const disk = doc.disk.value;
  if (!disk) return;
  if (choice === 'reload' && disk.kind === 'modified') {
    applyDiskContent(doc, disk.content ?? '', disk.etag!);
    return;
  }
  // Keeping mine: the next save overwrites (or recreates) the file on purpose.
  doc.etag = disk.etag;
  doc.disk.value = null;
}
