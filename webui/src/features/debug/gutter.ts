// The debugger in every editor: breakpoints toggled in the glyph margin (with a faint dot under
// the pointer, as in VS Code), and the line where the program is stopped.
import { effect } from '@preact/signals';
import type { Doc } from '../../kernel/editor';
import { monacoApi } from '../../monaco/load';
import type { monaco } from '../../monaco/setup';
import { toggleBreakpoint, trackModel } from './breakpoints';
import { currentLocation } from './debugger';

const HINT: monaco.editor.IModelDecorationOptions = { glyphMarginClassName: 'bp-glyph-hint' };

const lineStart = (line: number): monaco.IRange => ({ startLineNumber: line, startColumn: 1, endLineNumber: line, endColumn: 1 });

// Everything below runs for an editor, so after Monaco has loaded.
const isGlyphMargin = (type: monaco.editor.MouseTargetType) => type === monacoApi().editor.MouseTargetType.GUTTER_GLYPH_MARGIN;

function hoverHint(editor: monaco.editor.IStandaloneCodeEditor): monaco.IDisposable[] {
  const hint = editor.createDecorationsCollection();
  return [
    editor.onMouseMove((ev) => {
      const line = isGlyphMargin(ev.target.type) ? ev.target.position?.lineNumber : undefined;
      hint.set(line ? [{ range: lineStart(line), options: HINT }] : []);
    }),
    editor.onMouseLeave(() => hint.clear()),
  ];
}

function currentLine(editor: monaco.editor.IStandaloneCodeEditor, doc: Doc): monaco.IDisposable {
  const monaco = monacoApi();
  const options: monaco.editor.IModelDecorationOptions = {
    isWholeLine: true,
    className: 'debug-current-line',
    glyphMarginClassName: 'debug-current-glyph',
    stickiness: monaco.editor.TrackedRangeStickiness.NeverGrowsWhenTypingAtEdges,
  };
  const current = editor.createDecorationsCollection();
  const stop = effect(() => {
    const location = currentLocation.value;
    if (!location || location.path !== doc.path) {
      current.clear();
      return;
    }
    current.set([{ range: lineStart(location.line), options }]);
    editor.revealLineInCenterIfOutsideViewport(location.line);
  });
  return { dispose: stop };
}

export function debugGutter(editor: monaco.editor.IStandaloneCodeEditor, doc: Doc): monaco.IDisposable {
  const model = doc.model;
  if (!model) return { dispose: () => undefined };
  editor.updateOptions({ glyphMargin: true });
  trackModel(doc.path, model);
  const parts = [
    editor.onMouseDown((ev) => {
      if (!isGlyphMargin(ev.target.type) || !ev.target.position) return;
      ev.event.preventDefault();
      toggleBreakpoint(doc.path, ev.target.position.lineNumber);
    }),
    ...hoverHint(editor),
    currentLine(editor, doc),
  ];
  return { dispose: () => parts.forEach((part) => part.dispose()) };
}
