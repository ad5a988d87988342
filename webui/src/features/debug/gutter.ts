// The debugger in every editor: breakpoints toggled in the glyph margin (with a faint dot under
// the pointer, as in VS Code), and the line where the program is stopped.
import { effect } from '@preact/signals';
import type { Doc } from '../editor/documents';
import { monaco } from '../../monaco/setup';
import { toggleBreakpoint, trackModel } from './breakpoints';
import { currentLocation } from './debugger';

const GLYPH = monaco.editor.MouseTargetType.GUTTER_GLYPH_MARGIN;

const HINT: monaco.editor.IModelDecorationOptions = { glyphMarginClassName: 'bp-glyph-hint' };
const CURRENT: monaco.editor.IModelDecorationOptions = {
  isWholeLine: true,
  className: 'debug-current-line',
  glyphMarginClassName: 'debug-current-glyph',
  stickiness: monaco.editor.TrackedRangeStickiness.NeverGrowsWhenTypingAtEdges,
};

function hoverHint(editor: monaco.editor.IStandaloneCodeEditor): monaco.IDisposable[] {
  const hint = editor.createDecorationsCollection();
  return [
    editor.onMouseMove((ev) => {
      const line = ev.target.type === GLYPH ? ev.target.position?.lineNumber : undefined;
      hint.set(line ? [{ range: new monaco.Range(line, 1, line, 1), options: HINT }] : []);
    }),
    editor.onMouseLeave(() => hint.clear()),
  ];
}

function currentLine(editor: monaco.editor.IStandaloneCodeEditor, doc: Doc): monaco.IDisposable {
  const current = editor.createDecorationsCollection();
  const stop = effect(() => {
    const location = currentLocation.value;
    if (!location || location.path !== doc.path) {
      current.clear();
      return;
    }
    current.set([{ range: new monaco.Range(location.line, 1, location.line, 1), options: CURRENT }]);
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
      if (ev.target.type !== GLYPH || !ev.target.position) return;
      ev.event.preventDefault();
      toggleBreakpoint(doc.path, ev.target.position.lineNumber);
    }),
    ...hoverHint(editor),
    currentLine(editor, doc),
  ];
  return { dispose: () => parts.forEach((part) => part.dispose()) };
}
