// Rename a Python name in every file that uses it (F2): the language server finds the occurrences
// (`mnnwb/rename`), a preview lists every changed line, and Apply writes them all — in the editor
// for files loaded here (saved too, when they had no unsaved changes), through the server for the
// rest (all or nothing, each file only if unchanged since the preview). One Undo takes it all back.
import { signal } from '@preact/signals';
import { errorMessage } from '../../api/client';
import { monacoApi } from '../../monaco/load';
import type { monaco } from '../../monaco/setup';
import { notify } from '../../ui/toast';
import { type Doc, getDoc, saveDoc } from '../../kernel/editor';
import { pid } from '../../kernel/session';
import { applyEdits, previewEdits, type FileEdited, type FileSkipped, type LineChange, type LspTextEdit } from './api';
import { where } from './connection';
import { toRange } from './convert';
import { pathOf } from './documents';

export interface PlannedFile {
  path: string;
  edits: LspTextEdit[];
  changes: LineChange[];
  /** Loaded in this tab: edited in its model. */
  doc: Doc | null;
  /** A file the server writes: the etag its preview was made from. */
  etag: string | null;
}

export interface RenamePlan {
  from: string;
  to: string;
  files: PlannedFile[];
  /** Files that cannot take the edits, and why: the rename is then not applied at all. */
  problems: FileSkipped[];
  applying: boolean;
  error: string | null;
}

interface OpenUndo {
  doc: Doc;
  inverse: monaco.editor.IIdentifiedSingleEditOperation[];
  saved: boolean;
}

interface LastRename {
  from: string;
  to: string;
  count: number;
  written: FileEdited[];
  open: OpenUndo[];
}

export const renamePlan = signal<RenamePlan | null>(null);
export const lastRename = signal<LastRename | null>(null);

const PYTHON_KEYWORDS = new Set(['False', 'None', 'True', 'and', 'as', 'assert', 'async', 'await', 'break', 'class',
  'continue', 'def', 'del', 'elif', 'else', 'except', 'finally', 'for', 'from', 'global', 'if', 'import', 'in', 'is',
  'lambda', 'nonlocal', 'not', 'or', 'pass', 'raise', 'return', 'try', 'while', 'with', 'yield']);

export const isPythonName = (name: string): boolean => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !PYTHON_KEYWORDS.has(name);

/** The lines the edits change in a loaded model, or why they do not fit it (it changed since). */
function previewInModel(model: monaco.editor.ITextModel, edits: LspTextEdit[], from: string): LineChange[] | string {
  const byLine = new Map<number, LspTextEdit[]>();
  for (const edit of edits) {
    if (model.getValueInRange(toRange(edit.range)) !== from) return `its text is not ${from} where the language server found it`;
    byLine.set(edit.range.start.line, [...(byLine.get(edit.range.start.line) ?? []), edit]);
  }
  return [...byLine.entries()].sort(([a], [b]) => a - b).map(([line, onLine]) => {
    const before = model.getLineContent(line + 1);
    let after = before;
    for (const edit of [...onLine].sort((a, b) => b.range.start.character - a.range.start.character)) {
      after = after.slice(0, edit.range.start.character) + edit.newText + after.slice(edit.range.end.character);
    }
    return { line: line + 1, before, after };
  });
}

/** Asks the language server for the rename's edits and shows their preview; null or a reason
 * Monaco shows at the cursor. */
export async function planRename(model: monaco.editor.ITextModel, position: monaco.Position, to: string): Promise<string | null> {
  if (!isPythonName(to)) return `${to} is not a Python name`;
  const at = await where(model, position);
  if (!at) return 'The Python language server is not available.';
  let found: { name: string; changes: Record<string, LspTextEdit[]> };
  try {
    found = await at.lsp.call('mnnwb/rename', { ...at.params, newName: to });
  } catch (err) {
    return errorMessage(err);
  }
  const files: PlannedFile[] = [];
  const problems: FileSkipped[] = [];
  const onDisk: { path: string; edits: LspTextEdit[] }[] = [];
  for (const [uri, edits] of Object.entries(found.changes)) {
    const path = pathOf(at.lsp, uri);
    if (path === null) return `${found.name} is used outside the project: it cannot be renamed here`;
    const doc = getDoc(path);
    if (doc?.model) {
      const changes = previewInModel(doc.model, edits, found.name);
      if (typeof changes === 'string') problems.push({ path, detail: changes, code: 'changed' });
      else files.push({ path, edits, changes, doc, etag: null });
    } else {
      onDisk.push({ path, edits });
    }
  }
  if (onDisk.length) {
    try {
      const preview = await previewEdits(pid(), onDisk);
      problems.push(...preview.skipped);
      for (const file of preview.files) {
        const edits = onDisk.find((f) => f.path === file.path)!.edits;
        files.push({ path: file.path, edits, changes: file.changes, doc: null, etag: file.etag });
      }
    } catch (err) {
      return errorMessage(err);
    }
  }
  files.sort((a, b) => a.path.localeCompare(b.path));
  renamePlan.value = { from: found.name, to, files, problems, applying: false, error: null };
  return null;
}

function editModel(model: monaco.editor.ITextModel, edits: monaco.editor.IIdentifiedSingleEditOperation[]) {
  let inverse: monaco.editor.IIdentifiedSingleEditOperation[] = [];
  model.pushStackElement();
  model.pushEditOperations([], edits, (undo) => {
    inverse = undo.map((op) => ({ range: op.range, text: op.text }));
    return null;
  });
  model.pushStackElement();
  return inverse;
}

async function saveQuietly(doc: Doc): Promise<void> {
  await saveDoc(doc, { hooks: false }).catch((err) => notify(errorMessage(err)));
}

export async function applyRename(): Promise<void> {
  const plan = renamePlan.value;
  if (!plan || plan.applying || plan.problems.length) return;
  renamePlan.value = { ...plan, applying: true };
  const onDisk = plan.files.filter((f) => !f.doc);
  let written: FileEdited[] = [];
  if (onDisk.length) {
    try {
      const result = await applyEdits(pid(), onDisk.map((f) => ({ path: f.path, etag: f.etag!, edits: f.edits })));
      written = result.applied;
      if (result.skipped.length) {
        renamePlan.value = { ...plan, applying: false, problems: result.skipped,
          error: written.length ? 'Some files were written before another changed: undo the rename to take them back.' : null };
        if (written.length) lastRename.value = { from: plan.from, to: plan.to, count: written.length, written, open: [] };
        return;
      }
    } catch (err) {
      renamePlan.value = { ...plan, applying: false, error: errorMessage(err) };
      return;
    }
  }
  const open: OpenUndo[] = [];
  for (const file of plan.files) {
    const doc = file.doc;
    if (!doc?.model) continue;
    const saved = doc.state.value === 'clean';
    const inverse = editModel(doc.model, file.edits.map((e) => ({ range: toRange(e.range), text: e.newText })));
    open.push({ doc, inverse, saved });
    if (saved) await saveQuietly(doc);
  }
  renamePlan.value = null;
  lastRename.value = { from: plan.from, to: plan.to, count: plan.files.length, written, open };
}

/** Takes the last rename back in every file it changed, if none was changed since. */
export async function undoRename(): Promise<void> {
  const last = lastRename.value;
  if (!last) {
    notify('There is no rename to undo.', 'info');
    return;
  }
  const moved = last.open.find(({ doc, inverse }) => !doc.model || doc.model.isDisposed()
    || inverse.some((op) => doc.model!.getValueInRange(op.range) !== last.to));
  if (moved) {
    notify(`Cannot undo the rename: ${moved.doc.path} changed since.`);
    return;
  }
  if (last.written.length) {
    try {
      const result = await applyEdits(pid(), last.written.map((f) => ({ path: f.path, etag: f.etag, edits: f.undo })));
      if (result.skipped.length) {
        notify(`Cannot undo the rename: ${result.skipped.map((s) => `${s.path} (${s.detail})`).join(', ')}.`);
        return;
      }
    } catch (err) {
      notify(`Cannot undo the rename: ${errorMessage(err)}`);
      return;
    }
  }
  for (const { doc, inverse, saved } of last.open) {
    editModel(doc.model!, inverse);
    if (saved) await saveQuietly(doc);
  }
  lastRename.value = null;
  notify(`Renamed ${last.to} back to ${last.from}.`, 'info');
}

/** Monaco's rename (F2): its input box asks for the new name, the preview does the rest. */
export function registerRename(monacoNs: typeof monaco): void {
  monacoNs.languages.registerRenameProvider('python', {
    async provideRenameEdits(model, position, newName) {
      const reason = await planRename(model, position, newName);
      return reason ? { edits: [], rejectReason: reason } : { edits: [] };
    },
    resolveRenameLocation(model, position) {
      const word = model.getWordAtPosition(position);
      const range = word
        ? new (monacoApi().Range)(position.lineNumber, word.startColumn, position.lineNumber, word.endColumn)
        : new (monacoApi().Range)(position.lineNumber, position.column, position.lineNumber, position.column);
      if (!word || !isPythonName(word.word)) return { range, text: '', rejectReason: 'Only a Python name can be renamed.' };
      return { range, text: word.word };
    },
  });
}
