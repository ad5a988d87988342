// The open file's text, editable, while Monaco is still loading: on a cold page the file arrives
// with the workbench's code, half a second or more before Monaco's core has run. What is typed
// here, the selection, the scroll position and a Ctrl+S are handed to the Monaco editor that
// replaces it (MonacoHost in EditorPanel.tsx), so nothing typed early is lost.
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { noteEarlyKey } from '../../monaco/load';
import type { monaco } from '../../monaco/setup';
import { docsVersion } from './documents';
import { typingElsewhere } from './focus';

interface EarlyState {
  original: string;
  text: string;
  start: number;
  end: number;
  scrollTop: number;
  focused: boolean;
  save: boolean;
}

const early = new Map<string, EarlyState>();

export const editedEarly = (path: string): boolean => {
  const state = early.get(path);
  return state !== undefined && state.text !== state.original;
};

/** The tab was closed (its discarding confirmed, see EditorTab.tsx): nothing to hand over. */
export function forgetEarlyEdits(path: string): void {
  early.delete(path);
}

const lineCount = (text: string): number => text.split('\n').length;

export function EarlyEditor({ path, text }: { path: string; text: string }) {
  const area = useRef<HTMLTextAreaElement>(null);
  const gutter = useRef<HTMLDivElement>(null);
  const [lines, setLines] = useState(() => lineCount(early.get(path)?.text ?? text));
  useLayoutEffect(() => {
    const el = area.current!;
    const known = early.get(path);
    el.value = known?.text ?? text; // a textarea keeps its line ends as \n
    const state = known ?? { original: el.value, text: el.value, start: 0, end: 0, scrollTop: 0, focused: true, save: false };
    early.set(path, state);
    el.setSelectionRange(state.start, state.end);
    el.scrollTop = state.scrollTop;
    if (state.focused && !typingElsewhere(el.parentElement ?? el)) el.focus();
    return () => {
      Object.assign(state, {
        text: el.value,
        start: el.selectionStart,
        end: el.selectionEnd,
        scrollTop: el.scrollTop,
        focused: document.activeElement === el,
      });
    };
  }, [path]);
  const onInput = () => {
    const state = early.get(path)!;
    const wasEdited = editedEarly(path);
    state.text = area.current!.value;
    setLines(lineCount(state.text));
    if (editedEarly(path) !== wasEdited) docsVersion.value += 1; // the tab's dirty dot
  };
  const onKeyDown = (ev: KeyboardEvent) => {
    noteEarlyKey();
    if ((ev.ctrlKey || ev.metaKey) && ev.key.toLowerCase() === 's') {
      ev.preventDefault();
      early.get(path)!.save = true; // saved as soon as the editor takes over
    } else if (ev.key === 'Tab' && !ev.ctrlKey && !ev.altKey && !ev.metaKey) {
      ev.preventDefault(); // as in the editor: Tab indents, it does not leave the text
      if (!ev.shiftKey) document.execCommand('insertText', false, '    ');
    }
  };
  return (
    <div class="early-editor">
      <div class="early-gutter" ref={gutter} aria-hidden="true">
        {Array.from({ length: lines }, (_, i) => i + 1).join('\n')}
      </div>
      <textarea
        ref={area}
        class="early-text"
        data-testid="editor-early"
        data-path={path}
        spellcheck={false}
        wrap="off"
        aria-label={`${path} (the editor is loading)`}
        onInput={onInput}
        onKeyDown={onKeyDown}
        onScroll={() => (gutter.current!.scrollTop = area.current!.scrollTop)}
      />
    </div>
  );
}

interface Position { lineNumber: number; column: number }

/** The position of `offset` in `text` (lines end with \n, as in a textarea). */
function positionIn(text: string, offset: number): Position {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return { lineNumber: text.slice(0, lineStart).split('\n').length, column: offset - lineStart + 1 };
}

export interface EarlyHandover {
  selection: { start: Position; end: Position };
  scrollTop: number;
  focused: boolean;
  save: boolean;
}

/** Hands what was typed early to the document's model, as one undoable edit, and returns the
 * selection, scroll position and focus for its editor, and whether Ctrl+S was pressed. */
export function takeEarlyEdits(path: string, model: monaco.editor.ITextModel): EarlyHandover | undefined {
  const state = early.get(path);
  early.delete(path);
  if (!state) return undefined;
  const before = model.getValue(1 /* EndOfLinePreference.LF: a textarea's line ends */);
  const after = state.text;
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  let tail = 0;
  while (tail < before.length - head && tail < after.length - head
    && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++;
  if (head + tail < before.length || head + tail < after.length) {
    const start = positionIn(before, head);
    const end = positionIn(before, before.length - tail);
    const range = {
      startLineNumber: start.lineNumber, startColumn: start.column,
      endLineNumber: end.lineNumber, endColumn: end.column,
    };
    model.pushEditOperations([], [{ range, text: after.slice(head, after.length - tail) }], () => null);
  }
  return {
    selection: { start: positionIn(after, state.start), end: positionIn(after, state.end) },
    scrollTop: state.scrollTop,
    focused: state.focused,
    save: state.save,
  };
}
