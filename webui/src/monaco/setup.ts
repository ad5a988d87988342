// Monaco's slim entry plus the few languages we edit. The worker setup is explicit: a Vite build
// does not find Monaco's workers on its own, and without one the diff editor never computes a diff.
import * as monaco from 'monaco-editor/editor/editor.api';
import EditorWorker from 'monaco-editor/editor/editor.worker?worker';
import JsonWorker from 'monaco-editor/language/json/json.worker?worker';
import 'monaco-editor/language/json/monaco.contribution';
// Icons are needed from the first editor on; the editing features arrive a moment later (features.ts).
import 'monaco-editor/features/codicon/register';
// Monaco fixes its services when the first editor starts: the ones the later-loaded completion,
// go to definition and problem navigation need (features.ts) are registered now, not then.
import 'monaco-editor/editor/contrib/suggest/browser/suggestMemory';
import 'monaco-editor/editor/contrib/gotoSymbol/browser/symbolNavigation';
import 'monaco-editor/editor/contrib/gotoError/browser/markerNavigationService';
import * as markdown from 'monaco-editor/languages/definitions/markdown/markdown';
import * as python from 'monaco-editor/languages/definitions/python/python';
import * as shell from 'monaco-editor/languages/definitions/shell/shell';
import * as yaml from 'monaco-editor/languages/definitions/yaml/yaml';

interface MonarchDefinition {
  conf: monaco.languages.LanguageConfiguration;
  language: monaco.languages.IMonarchLanguage;
}

self.MonacoEnvironment = {
  getWorker: (_id: string, label: string) => (label === 'json' ? new JsonWorker() : new EditorWorker()),
};

monaco.editor.defineTheme('mnnwb-dark', {
  base: 'vs-dark',
  inherit: true,
  rules: [],
  colors: { 'editor.background': '#1e1e1e' },
});

// Registered eagerly (a few KB) rather than through Monaco's lazy loaders: the first file a page
// shows would otherwise wait for one more request before it is coloured.
const MONARCH: [string, MonarchDefinition][] = [
  ['python', python],
  ['markdown', markdown],
  ['yaml', yaml],
  ['shell', shell],
];
for (const [id, definition] of MONARCH) {
  monaco.languages.register({ id });
  monaco.languages.setMonarchTokensProvider(id, definition.language);
  monaco.languages.setLanguageConfiguration(id, definition.conf);
}

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

export { monaco };

// A diff still computing in the worker when its editor closes comes back empty for models already
// disposed, and Monaco then throws "no diff result available" into the page: let it finish first.
const DIFF_MODEL_GRACE_MS = 3000;

/** Disposes a closed diff editor's models once a diff it started can no longer need them. */
export function disposeDiffModels(...models: monaco.editor.ITextModel[]): void {
  window.setTimeout(() => models.forEach((model) => model.dispose()), DIFF_MODEL_GRACE_MS);
}
