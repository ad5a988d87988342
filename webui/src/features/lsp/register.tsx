// Python language features in the editor from the project's language server (server/lsp/):
// completion, hover, go to definition and diagnostics. The connection opens with the first
// Python editor.
import { monacoApi, whenMonaco, type MonacoApi } from '../../monaco/load';
import type { monaco } from '../../monaco/setup';
import { openDoc } from '../editor/documents';
import { registerEditorExtension } from '../editor/extensions';
import { revealMatch } from '../search/reveal';
import { pid } from '../workbench/session';
import { LspClient } from './client';
import { toCompletion, toMarkdown, toMarker, toPosition, toRange, type LspCompletionItem, type LspDiagnostic, type LspRange, type MarkupContent } from './convert';
import { docForModel, isPython, pathOf, reopenAll, track, uriOf } from './documents';
import { languageServerRefusal } from './refusal';

const OWNER = 'python';
let client: LspClient | null = null;

function connected(): LspClient {
  if (!client) {
    const created = new LspClient(pid(), () => reopenAll(created), (reason) => {
      languageServerRefusal.value = reason;
    });
    created.on('textDocument/publishDiagnostics', (params) => showDiagnostics(created, params as { uri: string; diagnostics: LspDiagnostic[] }));
    created.connect();
    client = created;
  }
  return client;
}

function showDiagnostics(lsp: LspClient, params: { uri: string; diagnostics: LspDiagnostic[] }): void {
  const path = pathOf(lsp, params.uri);
  const monaco = monacoApi();
  const model = monaco.editor.getModels().find((m) => path !== null && docForModel(m)?.path === path);
  if (model) monaco.editor.setModelMarkers(model, OWNER, params.diagnostics.map(toMarker));
}

// The first request after a page load may come while the server is still starting.
const START_WAIT_MS = 15_000;

/** The document position of a model, if the language server knows the model's file. */
async function where(model: monaco.editor.ITextModel, position: monaco.Position) {
  const doc = docForModel(model);
  if (!client || !doc) return null;
  await client.whenReady(START_WAIT_MS);
  if (!client.ready) return null;
  return { lsp: client, params: { textDocument: { uri: uriOf(client, doc.path) }, position: toPosition(position) } };
}

function registerProviders(monaco: MonacoApi): void {
  monaco.languages.registerCompletionItemProvider('python', {
    triggerCharacters: ['.'],
    async provideCompletionItems(model, position) {
      const at = await where(model, position);
      if (!at) return { suggestions: [], incomplete: true };
      const result = await at.lsp.call<LspCompletionItem[] | { items: LspCompletionItem[] } | null>('textDocument/completion', at.params);
      const items = Array.isArray(result) ? result : result?.items ?? [];
      const word = model.getWordUntilPosition(position);
      const range = { startLineNumber: position.lineNumber, endLineNumber: position.lineNumber, startColumn: word.startColumn, endColumn: word.endColumn };
      return { suggestions: items.map((item) => toCompletion(item, range)) };
    },
  });
  monaco.languages.registerHoverProvider('python', {
    async provideHover(model, position) {
      const at = await where(model, position);
      if (!at) return null;
      const hover = await at.lsp.call<{ contents: MarkupContent | MarkupContent[]; range?: LspRange } | null>('textDocument/hover', at.params);
      const contents = hover ? toMarkdown(hover.contents) : [];
      return contents.length ? { contents, range: hover?.range ? toRange(hover.range) : undefined } : null;
    },
  });
  monaco.languages.registerDefinitionProvider('python', {
    async provideDefinition(model, position) {
      const at = await where(model, position);
      if (!at) return null;
      const found = await at.lsp.call<{ uri: string; range: LspRange }[] | null>('textDocument/definition', at.params);
      const locations = [];
      for (const location of found ?? []) {
        const path = pathOf(at.lsp, location.uri);
        if (path === null) continue; // outside the project (the standard library): nothing to open
        // Monaco resolves a definition to a model: load the file's document first.
        const doc = await openDoc(path).catch(() => null);
        if (doc?.model) locations.push({ uri: doc.model.uri, range: toRange(location.range) });
      }
      return locations;
    },
  });
  // A definition in another file opens that file's editor tab.
  monaco.editor.registerEditorOpener({
    openCodeEditor(_source, resource, selection) {
      const model = monaco.editor.getModel(resource);
      const doc = model ? docForModel(model) : undefined;
      if (!doc) return false;
      const start = selection && 'startLineNumber' in selection
        ? { line: selection.startLineNumber, column: selection.startColumn }
        : { line: selection?.lineNumber ?? 1, column: selection?.column ?? 1 };
      void revealMatch(doc.path, start.line, start.column, 0);
      return true;
    },
  });
}

export function registerLanguageFeatures(): void {
  // Monaco's registries take providers at any time: these need not hold up the first paint.
  whenMonaco(registerProviders);
  registerEditorExtension((_editor, doc) => {
    if (isPython(doc)) track(connected(), doc);
    return { dispose: () => undefined };
  });
}
