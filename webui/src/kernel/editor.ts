// The editor service: what the features that face files ask of the editor (open a file's tab, its
// open document, save it, the current Monaco editor). The editor feature provides it when the
// project page starts (features/editor/service.ts, called by app/mountProject.tsx), before the
// features register; the others call the functions below and import no editor module. The
// editor's extension point is kernel/editorExtensions.ts, its dock names kernel/editorPanels.ts.
import { signal } from '@preact/signals';
import { loadMonaco } from '../monaco/load';
import type { monaco } from '../monaco/setup';
import type { Doc } from './doc';

export type { DiskChange, Doc, SaveState } from './doc';

export interface OpenOptions {
  /** Opened for a look: in the group's preview tab, replacing the file previewed there. */
  preview?: boolean;
}

/** Runs before a person's save (Ctrl+S), e.g. formatting on save (features/lsp/format.ts). */
export type BeforeSave = (doc: Doc) => Promise<void>;

export interface EditorService {
  /** Opens (or focuses) the editor tab of a file; new ones always go to the main area. */
  openEditor(path: string, options?: OpenOptions): void;
  /** Opens a file to work in it: the typing goes to its editor. */
  openToEdit(path: string): void;
  /** The Monaco editor of a file once its tab shows it, or undefined if it does not come. */
  editorOf(path: string): Promise<monaco.editor.ICodeEditor | undefined>;
  /** The focused editor, else the last one used. */
  currentEditor(): monaco.editor.ICodeEditor | undefined;
  openDoc(path: string): Promise<Doc>;
  getDoc(path: string): Doc | undefined;
  openDocs(): Doc[];
  closeDoc(path: string, options?: { discard?: boolean }): void;
  /** `hooks: false` for a save that is not the person's own edit (a rename writing its files). */
  saveDoc(doc: Doc, options?: { hooks?: boolean }): Promise<void>;
  /** A person's save: a failure is told in a notice. */
  saveWithNotice(doc: Doc): void;
  registerBeforeSave(hook: BeforeSave): void;
}

/** The editor service was asked for before the editor feature provided it. */
export class EditorServiceMissingError extends Error {
  constructor() {
    super('The editor service is not provided yet (features/editor/service.ts)');
    this.name = 'EditorServiceMissingError';
  }
}

let provided: EditorService | null = null;

export function provideEditorService(service: EditorService): void {
  provided = service;
}

function service(): EditorService {
  if (!provided) throw new EditorServiceMissingError();
  return provided;
}

/** Bumped whenever any document's save state changes, for the tabs and the status bar. */
export const docsVersion = signal(0);

export const openEditor = (path: string, options?: OpenOptions): void => service().openEditor(path, options);
export const openToEdit = (path: string): void => service().openToEdit(path);
export const editorOf = (path: string): Promise<monaco.editor.ICodeEditor | undefined> => service().editorOf(path);
export const currentEditor = (): monaco.editor.ICodeEditor | undefined => service().currentEditor();
export const openDoc = (path: string): Promise<Doc> => service().openDoc(path);
export const getDoc = (path: string): Doc | undefined => service().getDoc(path);
export const openDocs = (): Doc[] => service().openDocs();
export const closeDoc = (path: string, options?: { discard?: boolean }): void => service().closeDoc(path, options);
export const saveDoc = (doc: Doc, options?: { hooks?: boolean }): Promise<void> => service().saveDoc(doc, options);
export const saveWithNotice = (doc: Doc): void => service().saveWithNotice(doc);
export const registerBeforeSave = (hook: BeforeSave): void => service().registerBeforeSave(hook);

/** Opens a file and puts the cursor on a match (the editor appears a moment after its tab). */
export async function revealMatch(path: string, line: number, column: number, length: number, options: OpenOptions = {}): Promise<void> {
  openEditor(path, options);
  const editor = await editorOf(path);
  if (!editor) return;
  const { monaco } = await loadMonaco();
  editor.setSelection(new monaco.Selection(line, column, line, column + length));
  editor.revealLineInCenter(line);
  editor.focus();
}
