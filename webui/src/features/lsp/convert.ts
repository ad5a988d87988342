// Between the language server's shapes (0-based lines) and Monaco's (1-based).
// Called with what the language server answers for an open editor, so once Monaco has loaded.
import { monacoApi } from '../../monaco/load';
import type { monaco } from '../../monaco/setup';

export interface LspPosition { line: number; character: number }
export interface LspRange { start: LspPosition; end: LspPosition }
export interface LspDiagnostic { range: LspRange; message: string; severity?: number; source?: string }
export interface LspCompletionItem {
  label: string;
  kind?: number;
  detail?: string;
  documentation?: string | { value: string };
  insertText?: string;
  textEdit?: { range: LspRange; newText: string };
  sortText?: string;
  filterText?: string;
}
export type MarkupContent = string | { kind?: string; value: string; language?: string };

export const toPosition = (p: monaco.Position): LspPosition => ({ line: p.lineNumber - 1, character: p.column - 1 });

export const toRange = (r: LspRange): monaco.IRange => ({
  startLineNumber: r.start.line + 1, startColumn: r.start.character + 1,
  endLineNumber: r.end.line + 1, endColumn: r.end.character + 1,
});

// LSP DiagnosticSeverity (1-based) → Monaco's enum, by name.
const SEVERITIES = ['Error', 'Warning', 'Info', 'Hint'] as const;

export const toMarker = (d: LspDiagnostic): monaco.editor.IMarkerData => ({
  ...toRange(d.range), message: d.message, severity: monacoApi().MarkerSeverity[SEVERITIES[(d.severity ?? 1) - 1] ?? 'Error'],
  source: d.source,
});

// LSP CompletionItemKind (1-based) → Monaco's enum, by name.
const KINDS = ['Text', 'Method', 'Function', 'Constructor', 'Field', 'Variable', 'Class', 'Interface', 'Module',
  'Property', 'Unit', 'Value', 'Enum', 'Keyword', 'Snippet', 'Color', 'File', 'Reference', 'Folder', 'EnumMember',
  'Constant', 'Struct', 'Event', 'Operator', 'TypeParameter'] as const;

export function toCompletion(item: LspCompletionItem, fallback: monaco.IRange): monaco.languages.CompletionItem {
  const kindName = KINDS[(item.kind ?? 1) - 1] ?? 'Text';
  const docs = typeof item.documentation === 'string' ? item.documentation : item.documentation?.value;
  return {
    label: item.label,
    kind: monacoApi().languages.CompletionItemKind[kindName],
    detail: item.detail,
    documentation: docs ? { value: docs } : undefined,
    insertText: item.textEdit?.newText ?? item.insertText ?? item.label,
    range: item.textEdit ? toRange(item.textEdit.range) : fallback,
    sortText: item.sortText,
    filterText: item.filterText,
  };
}

export function toMarkdown(contents: MarkupContent | MarkupContent[]): monaco.IMarkdownString[] {
  const list = Array.isArray(contents) ? contents : [contents];
  return list.filter(Boolean).map((c) => {
    if (typeof c === 'string') return { value: c };
    return { value: c.language ? `\`\`\`${c.language}\n${c.value}\n\`\`\`` : c.value };
  }).filter((c) => c.value.trim());
}
