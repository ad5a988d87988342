// The project's language server connection, opened with the first Python editor (or the first
// request that needs it), and the position of an editor's cursor in the server's terms.
import type { monaco } from '../../monaco/setup';
import { pid } from '../../kernel/session';
import { LspClient } from './client';
import { toPosition } from './convert';
import { docForModel, reopenAll, uriOf } from './documents';
import { languageServerRefusal } from './refusal';

type Listener = (client: LspClient, params: unknown) => void;

let client: LspClient | null = null;
const listeners = new Map<string, Listener>();

/** Listeners of the server's notifications, registered before the connection opens. */
export function onNotification(method: string, listener: Listener): void {
  listeners.set(method, listener);
  client?.on(method, (params) => listener(client!, params));
}

/** The connection if one was opened (by a Python editor), else null. */
export const currentClient = (): LspClient | null => client;

export function connected(): LspClient {
  if (!client) {
    const created = new LspClient(pid(), () => reopenAll(created), (reason) => {
      languageServerRefusal.value = reason;
    });
    for (const [method, listener] of listeners) created.on(method, (params) => listener(created, params));
    created.connect();
    client = created;
  }
  return client;
}

// The first request after a page load may come while the server is still starting.
const START_WAIT_MS = 15_000;

/** The connection once it answers requests, or null (refused, or not up in time). */
export async function readyClient(waitMs = START_WAIT_MS): Promise<LspClient | null> {
  const lsp = connected();
  await lsp.whenReady(waitMs);
  return lsp.ready ? lsp : null;
}

/** The document position of a model, if the language server knows the model's file. */
export async function where(model: monaco.editor.ITextModel, position: monaco.Position) {
  const doc = docForModel(model);
  if (!client || !doc) return null;
  await client.whenReady(START_WAIT_MS);
  if (!client.ready) return null;
  return { lsp: client, path: doc.path, params: { textDocument: { uri: uriOf(client, doc.path) }, position: toPosition(position) } };
}
