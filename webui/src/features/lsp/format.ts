// Formatting a Python file or its selection (Shift+Alt+F, Format Selection), sorting its imports
// (Shift+Alt+O) and formatting on save, with the formatter the language server picks
// (`mnnwb/format`: the project's ruff or black, else the server's ruff). Format on save is a
// setting of each person, kept by the server (GET|PUT /api/editor/settings).
import { signal } from '@preact/signals';
import { errorMessage } from '../../api/client';
import type { monaco } from '../../monaco/setup';
import { notify } from '../../ui/toast';
import { currentEditor, type Doc, registerBeforeSave } from '../../kernel/editor';
import { registerCommand } from '../../kernel/commands';
import { getEditorSettings, putEditorSettings, type LspTextEdit } from './api';
import { readyClient } from './connection';
import { toRange, type LspRange } from './convert';
import { docForModel, isPython, isSynced, uriOf } from './documents';

export const formatOnSave = signal(false);
let settingsLoaded: Promise<void> | null = null;

function loadSettings(): Promise<void> {
  settingsLoaded ??= getEditorSettings().then((s) => {
    formatOnSave.value = s.format_on_save;
  }, () => undefined);
  return settingsLoaded;
}

type Request = 'mnnwb/format' | 'mnnwb/organizeImports';
// How long a save waits for a language server that is still starting before it saves unformatted.
const SAVE_WAIT_MS = 3000;

/** The edits the language server's tool makes to a Python model's text, or null (a toast says
 * why; when saving, a server that is not up within a moment is not waited for). */
async function toolEdits(
  model: monaco.editor.ITextModel, method: Request, range?: LspRange, saving = false,
): Promise<LspTextEdit[] | null> {
  const doc = docForModel(model);
  if (!doc || !isPython(doc) || !isSynced(doc.path)) return null;
  const lsp = await readyClient(saving ? SAVE_WAIT_MS : undefined);
  if (!lsp) {
    if (!saving) notify('The Python language server is not available.');
    return null;
  }
  try {
    const answer = await lsp.call<{ edits: LspTextEdit[]; tool: string }>(method, { textDocument: { uri: uriOf(lsp, doc.path) }, range });
    return answer.edits;
  } catch (err) {
    notify(errorMessage(err));
    return null;
  }
}

const asMonaco = (edits: LspTextEdit[]) => edits.map((e) => ({ range: toRange(e.range), text: e.newText }));

/** Applies edits made for `version` of the model as one undoable step; none if it changed since. */
function applyToModel(model: monaco.editor.ITextModel, version: number, edits: LspTextEdit[]): void {
  if (!edits.length || model.getVersionId() !== version) return;
  model.pushStackElement();
  model.pushEditOperations(null, asMonaco(edits), () => null);
  model.pushStackElement();
}

export async function organizeImports(editor: monaco.editor.ICodeEditor | undefined = currentEditor()): Promise<void> {
  const model = editor?.getModel();
  if (!model) {
    notify('Open a Python file first.');
    return;
  }
  const version = model.getVersionId();
  const edits = await toolEdits(model, 'mnnwb/organizeImports');
  if (edits) applyToModel(model, version, edits);
}

function formatDocument(): void {
  const editor = currentEditor();
  if (!editor?.getModel()) notify('Open a Python file first.');
  else void editor.getAction('editor.action.formatDocument')?.run();
}

async function formatBeforeSave(doc: Doc): Promise<void> {
  await loadSettings();
  const model = doc.model;
  if (!formatOnSave.value || !model || !isPython(doc) || !isSynced(doc.path)) return;
  const version = model.getVersionId();
  const edits = await toolEdits(model, 'mnnwb/format', undefined, true);
  if (edits) applyToModel(model, version, edits);
}

function commandLabel(): string {
  return `Format on save: turn ${formatOnSave.value ? 'off' : 'on'}`;
}

async function toggleFormatOnSave(): Promise<void> {
  try {
    const saved = await putEditorSettings({ format_on_save: !formatOnSave.value });
    formatOnSave.value = saved.format_on_save;
    notify(`Python files are ${saved.format_on_save ? 'now' : 'no longer'} formatted when you save them.`, 'info');
  } catch (err) {
    notify(errorMessage(err));
  }
}

export function registerFormatting(monacoNs: typeof monaco): void {
  monacoNs.languages.registerDocumentFormattingEditProvider('python', {
    async provideDocumentFormattingEdits(model) {
      return asMonaco(await toolEdits(model, 'mnnwb/format') ?? []);
    },
  });
  monacoNs.languages.registerDocumentRangeFormattingEditProvider('python', {
    async provideDocumentRangeFormattingEdits(model, range) {
      const lspRange = { start: { line: range.startLineNumber - 1, character: range.startColumn - 1 },
        end: { line: range.endLineNumber - 1, character: range.endColumn - 1 } };
      return asMonaco(await toolEdits(model, 'mnnwb/format', lspRange) ?? []);
    },
  });
}

/** Python editors get Organize Imports in their context menu and on Shift+Alt+O, and Format
 * Document on Shift+Alt+F on every system (Monaco's own key for it on Linux is Ctrl+Shift+I). */
export function addEditorActions(monacoNs: typeof monaco, editor: monaco.editor.IStandaloneCodeEditor): monaco.IDisposable {
  const organize = editor.addAction({
    id: 'mnnwb.organizeImports',
    label: 'Organize Imports',
    keybindings: [monacoNs.KeyMod.Shift | monacoNs.KeyMod.Alt | monacoNs.KeyCode.KeyO],
    contextMenuGroupId: '1_modification',
    run: () => organizeImports(editor),
  });
  const format = editor.addAction({
    id: 'mnnwb.formatDocument',
    label: 'Format Document (Shift+Alt+F)',
    keybindings: [monacoNs.KeyMod.Shift | monacoNs.KeyMod.Alt | monacoNs.KeyCode.KeyF],
    run: () => editor.getAction('editor.action.formatDocument')?.run(),
  });
  return { dispose: () => { organize.dispose(); format.dispose(); } };
}

export function registerFormatCommands(): void {
  registerBeforeSave(formatBeforeSave);
  registerCommand({ id: 'python.format', label: 'Format document', shortcut: 'Shift+Alt+F', run: formatDocument });
  registerCommand({ id: 'python.organize-imports', label: 'Organize imports', shortcut: 'Shift+Alt+O', run: () => void organizeImports() });
  const register = () => registerCommand({ id: 'python.format-on-save', label: commandLabel(), run: () => void toggleFormatOnSave() });
  register();
  formatOnSave.subscribe(register);
  void loadSettings();
}
