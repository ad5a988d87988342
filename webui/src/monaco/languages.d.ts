// Monaco ships its Monarch language definitions without type declarations.
declare module 'monaco-editor/languages/definitions/*' {
  import type { languages } from 'monaco-editor/editor/editor.api';
  export const conf: languages.LanguageConfiguration;
  export const language: languages.IMonarchLanguage;
}
