// Python language features in the editor from the project's language server (server/lsp/):
// completion, hover, go to definition, find all references (Shift+F12), the file's outline
// (Ctrl+Shift+O), rename across files (F2, rename.ts), formatting and organising imports
// (format.ts), quick fixes (Ctrl+.), go to symbol in workspace (SymbolPicker.tsx), and diagnostics
// as squiggles and in the Problems panel. The connection opens with the first Python editor.
import { monacoApi, whenMonaco, type MonacoApi } from '../../monaco/load';
import type { monaco } from '../../monaco/setup';
import { openDoc, revealMatch } from '../../kernel/editor';
import { registerEditorExtension } from '../../kernel/editorExtensions';
import { registerCommand } from '../../kernel/commands';
import { registerPanel } from '../../kernel/panels';
import type { LspTextEdit } from './api';
import type { LspClient } from './client';
import { connected, currentClient, onNotification, where } from './connection';
import { toCompletion, toMarkdown, toMarker, toRange, type LspCompletionItem, type LspDiagnostic, type LspRange, type MarkupContent } from './convert';
import { docForModel, isPython, pathOf, track } from './documents';
import { addEditorActions, registerFormatCommands, registerFormatting } from './format';
import { openProblems, PROBLEMS_PANEL, ProblemsPanel } from './ProblemsPanel';
import { published, watchChangedFiles } from './problems';
import { registerRename } from './rename';
import { registerRenameHost } from './RenameHost';
import { registerSymbolPicker } from './SymbolPicker';
import './lsp.css';

const OWNER = 'python';

function showDiagnostics(lsp: LspClient, params: { uri: string; diagnostics: LspDiagnostic[] }): void {
  published(lsp, params.uri, params.diagnostics);
  const path = pathOf(lsp, params.uri);
  const monaco = monacoApi();
  const model = monaco.editor.getModels().find((m) => path !== null && docForModel(m)?.path === path);
  if (model) monaco.editor.setModelMarkers(model, OWNER, params.diagnostics.map(toMarker));
}

interface LspLocation { uri: string; range: LspRange }

/** Monaco resolves a location to a model: each file's document is loaded first. Locations
 * outside the project (the standard library) are left out: there is nothing to open. */
async function toLocations(lsp: LspClient, found: LspLocation[] | null): Promise<monaco.languages.Location[]> {
  const locations = [];
  for (const location of found ?? []) {
    const path = pathOf(lsp, location.uri);
    if (path === null) continue;
    const doc = await openDoc(path).catch(() => null);
    if (doc?.model) locations.push({ uri: doc.model.uri, range: toRange(location.range) });
  }
  return locations;
}

// A marker as the diagnostic the server published (what its quick fixes are matched by).
function toDiagnostic(marker: monaco.editor.IMarkerData): LspDiagnostic {
  const severities: Record<number, number> = { 8: 1, 4: 2, 2: 3, 1: 4 };
  return {
    range: { start: { line: marker.startLineNumber - 1, character: marker.startColumn - 1 },
      end: { line: marker.endLineNumber - 1, character: marker.endColumn - 1 } },
    message: marker.message, severity: severities[marker.severity] ?? 1, source: marker.source,
  };
}

interface LspCodeAction {
  title: string;
  kind?: string;
  edit?: { changes?: Record<string, LspTextEdit[]> };
}

// The protocol's SymbolKind is 1-based, Monaco's enum 0-based, in the same order.
const toSymbolKind = (kind: number): monaco.languages.SymbolKind => Math.max(0, kind - 1) as monaco.languages.SymbolKind;

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
      return toLocations(at.lsp, await at.lsp.call<LspLocation[] | null>('textDocument/definition', at.params));
    },
  });
  monaco.languages.registerReferenceProvider('python', {
    async provideReferences(model, position, context) {
      const at = await where(model, position);
      if (!at) return null;
      const found = await at.lsp.call<LspLocation[] | null>('textDocument/references',
        { ...at.params, context: { includeDeclaration: context.includeDeclaration } });
      return toLocations(at.lsp, found);
    },
  });
  monaco.languages.registerDocumentSymbolProvider('python', {
    async provideDocumentSymbols(model) {
      const at = await where(model, model.getPositionAt(0));
      if (!at) return null;
      const found = await at.lsp.call<{ name: string; kind: number; containerName?: string; location: LspLocation }[] | null>(
        'textDocument/documentSymbol', { textDocument: at.params.textDocument });
      return (found ?? []).map((s) => ({
        name: s.name, detail: '', kind: toSymbolKind(s.kind), tags: [], containerName: s.containerName,
        range: toRange(s.location.range), selectionRange: toRange(s.location.range),
      }));
    },
  });
  monaco.languages.registerCodeActionProvider('python', {
    async provideCodeActions(model, range, context) {
      const markers = context.markers;
      if (!markers.length) return { actions: [], dispose: () => undefined };
      const at = await where(model, range.getStartPosition());
      if (!at) return { actions: [], dispose: () => undefined };
      const lspRange = toDiagnostic({ ...range, message: '', severity: 8 }).range;
      const found = await at.lsp.call<LspCodeAction[] | null>('textDocument/codeAction', {
        textDocument: at.params.textDocument, range: lspRange, context: { diagnostics: markers.map(toDiagnostic) },
      });
      const versionId = model.getVersionId();
      const actions = (found ?? []).filter((a) => a.edit?.changes).map((a) => ({
        title: a.title,
        kind: a.kind ?? 'quickfix',
        edit: {
          edits: Object.values(a.edit!.changes!).flat().map((e) => ({
            resource: model.uri, versionId, textEdit: { range: toRange(e.range), text: e.newText },
          })),
        },
      }));
      return { actions, dispose: () => undefined };
    },
  }, { providedCodeActionKinds: ['quickfix'] });
  registerRename(monaco);
  registerFormatting(monaco);
  // A definition or reference in another file opens that file's editor tab.
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
  onNotification('textDocument/publishDiagnostics', (lsp, params) =>
    showDiagnostics(lsp, params as { uri: string; diagnostics: LspDiagnostic[] }));
  // Monaco's registries take providers at any time: these need not hold up the first paint.
  whenMonaco(registerProviders);
  registerEditorExtension((editor, doc) => {
    if (!isPython(doc)) return { dispose: () => undefined };
    track(connected(), doc);
    return addEditorActions(monacoApi(), editor);
  });
  registerPanel(PROBLEMS_PANEL, () => <ProblemsPanel />);
  registerCommand({ id: 'problems', label: 'Show problems', shortcut: 'Ctrl+Shift+M', run: openProblems });
  window.addEventListener('keydown', (ev) => {
    if ((ev.ctrlKey || ev.metaKey) && ev.shiftKey && !ev.altKey && ev.key.toLowerCase() === 'm') {
      ev.preventDefault();
      ev.stopPropagation();
      openProblems();
    }
  }, { capture: true });
  watchChangedFiles(currentClient);
  registerFormatCommands();
  registerSymbolPicker();
  registerRenameHost();
}
