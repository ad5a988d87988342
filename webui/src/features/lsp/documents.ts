// Which documents the language server knows: a Python file is opened there with its first
// editor, kept in sync on every change (full text) and closed when its model goes away.
import type { monaco } from '../../monaco/setup';
import { type Doc, openDocs } from '../../kernel/editor';
import type { LspClient } from './client';

interface Synced {
  doc: Doc;
  version: number;
  listener: monaco.IDisposable;
}

const synced = new Map<string, Synced>();

export const isPython = (doc: Doc): boolean => doc.model?.getLanguageId() === 'python';

export function uriOf(client: LspClient, path: string): string {
  return `${client.rootUri}/${path.split('/').map(encodeURIComponent).join('/')}`;
}

/** The project path of a file: URI the server sent, or null when it is outside the project. */
export function pathOf(client: LspClient, uri: string): string | null {
  const prefix = `${client.rootUri}/`;
  return uri.startsWith(prefix) ? uri.slice(prefix.length).split('/').map(decodeURIComponent).join('/') : null;
}

export function docForModel(model: monaco.editor.ITextModel): Doc | undefined {
  return openDocs().find((doc) => doc.model === model);
}

function didOpen(client: LspClient, entry: Synced): void {
  client.notify('textDocument/didOpen', {
    textDocument: { uri: uriOf(client, entry.doc.path), languageId: 'python', version: entry.version, text: entry.doc.model!.getValue() },
  });
}

export function track(client: LspClient, doc: Doc): void {
  if (synced.has(doc.path) || !doc.model) return;
  const model = doc.model;
  const entry: Synced = {
    doc,
    version: 1,
    listener: model.onDidChangeContent(() => {
      entry.version += 1;
      client.notify('textDocument/didChange', {
        textDocument: { uri: uriOf(client, doc.path), version: entry.version },
        contentChanges: [{ text: model.getValue() }],
      });
    }),
  };
  synced.set(doc.path, entry);
  model.onWillDispose(() => {
    entry.listener.dispose();
    synced.delete(doc.path);
    client.notify('textDocument/didClose', { textDocument: { uri: uriOf(client, doc.path) } });
  });
  if (client.ready) didOpen(client, entry);
}

/** Once (re)connected: the new server process knows nothing yet. */
export function reopenAll(client: LspClient): void {
  for (const entry of synced.values()) didOpen(client, entry);
}

/** Whether the language server has the file open (an editor shows it): it then reports the
 * file's diagnostics itself. */
export const isSynced = (path: string): boolean => synced.has(path);
