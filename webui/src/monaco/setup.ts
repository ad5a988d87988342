// Monaco's slim entry plus the few languages we edit, imported only through load.ts (dynamically:
// the workbench's first paint does not wait for it). The worker setup is explicit: a Vite build
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
// …and the ones of the language server's references, quick fixes and outline (features/lsp/).
import 'monaco-editor/editor/contrib/peekView/browser/peekView';
import 'monaco-editor/platform/actionWidget/browser/actionWidget';
import 'monaco-editor/editor/contrib/documentSymbols/browser/outlineModel';
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

export { monaco };

