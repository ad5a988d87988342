// The language features' HTTP routes (docs/ide.md): a rename's edits to files no editor has open,
// and the person's editor settings. Edits are the language server protocol's TextEdits.
import { request } from '../../api/client';
import type { LspRange } from './convert';

export interface LspTextEdit {
  range: LspRange;
  newText: string;
}

export interface LineChange {
  line: number;
  before: string;
  after: string;
}

export interface FileSkipped {
  path: string;
  detail: string;
  code: string;
}

export interface EditsPreview {
  files: { path: string; etag: string; changes: LineChange[] }[];
  skipped: FileSkipped[];
}

export interface FileEdited {
  path: string;
  etag: string;
  undo: LspTextEdit[];
}

export interface EditsResult {
  applied: FileEdited[];
  skipped: FileSkipped[];
}

export interface EditorSettings {
  format_on_save: boolean;
}

export const previewEdits = (pid: string, files: { path: string; edits: LspTextEdit[] }[]) =>
  request<EditsPreview>('POST', `/api/projects/${pid}/lsp/edits/preview`, { json: { files } });

export const applyEdits = (pid: string, files: { path: string; etag: string; edits: LspTextEdit[] }[]) =>
  request<EditsResult>('POST', `/api/projects/${pid}/lsp/edits`, { json: { files } });

export const getEditorSettings = () => request<EditorSettings>('GET', '/api/editor/settings');

export const putEditorSettings = (settings: EditorSettings) =>
  request<EditorSettings>('PUT', '/api/editor/settings', { json: settings });
