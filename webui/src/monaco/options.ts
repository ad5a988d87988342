// What the editors share that needs no Monaco code: the language of a path, the editor options,
// and the disposal of a diff's models. Kept apart from setup.ts so the workbench's start-up
// code can use it without loading Monaco (see load.ts).
import type { monaco } from './setup';

const LANGUAGES: Record<string, string> = {
  py: 'python',
  json: 'json',
  md: 'markdown',
  yaml: 'yaml',
  yml: 'yaml',
  sh: 'shell',
  bash: 'shell',
};

export function languageFor(path: string): string {
  const ext = path.includes('.') ? path.slice(path.lastIndexOf('.') + 1).toLowerCase() : '';
  return LANGUAGES[ext] ?? 'plaintext';
}

export const EDITOR_OPTIONS: monaco.editor.IStandaloneEditorConstructionOptions = {
  theme: 'mnnwb-dark',
  // Editors live in dock tabs that may be hidden or resized at any time.
  automaticLayout: true,
  fontSize: 13,
  minimap: { enabled: false },
  scrollBeyondLastLine: false,
  tabSize: 4,
  renderWhitespace: 'selection',
};

// Prose gets no word suggestions while typing, as in VS Code's Markdown defaults: a list that pops
// up after a word would take the Enter that ends the line. Ctrl+Space still asks for them.
const PROSE = new Set(['markdown']);

/** What an editor of a document in `language` sets on top of EDITOR_OPTIONS. */
export function optionsFor(language: string): monaco.editor.IEditorOptions {
  return PROSE.has(language) ? { quickSuggestions: false } : {};
}

// A diff still computing in the worker when its editor closes comes back empty for models already
// disposed, and Monaco then throws "no diff result available" into the page: let it finish first.
const DIFF_MODEL_GRACE_MS = 3000;

/** Disposes a closed diff editor's models once a diff it started can no longer need them. */
export function disposeDiffModels(...models: monaco.editor.ITextModel[]): void {
  window.setTimeout(() => models.forEach((model) => model.dispose()), DIFF_MODEL_GRACE_MS);
}
