// The slim entry has no editing features at all; these are the ones people reach for every day.
// This module is its own chunk, loaded once the first editor is usable (see editorFeatures.ts).
import 'monaco-editor/features/find/register';
import 'monaco-editor/features/folding/register';
import 'monaco-editor/features/bracketMatching/register';
import 'monaco-editor/features/comment/register';
import 'monaco-editor/features/multicursor/register';
import 'monaco-editor/features/linesOperations/register';
import 'monaco-editor/features/wordHighlighter/register';
import 'monaco-editor/features/wordOperations/register';
import 'monaco-editor/features/clipboard/register';
import 'monaco-editor/features/contextmenu/register';
import 'monaco-editor/features/indentation/register';
// The language server's completion, hover, go to definition and diagnostics need these.
import 'monaco-editor/features/suggest/register';
// The suggest widget itself: no feature entry of the slim build registers it.
import 'monaco-editor/editor/contrib/suggest/browser/suggestController';
import 'monaco-editor/features/hover/register';
import 'monaco-editor/features/gotoSymbol/register';
import 'monaco-editor/features/gotoError/register';
// The language server's references (Shift+F12, peeked), rename (F2), formatting, quick fixes and
// the file's outline (Ctrl+Shift+O): features/lsp/.
import 'monaco-editor/features/referenceSearch/register';
import 'monaco-editor/features/rename/register';
import 'monaco-editor/features/format/register';
import 'monaco-editor/features/codeAction/register';
import 'monaco-editor/features/documentSymbols/register';
import 'monaco-editor/features/quickOutline/register';
