// Line breakpoints by project path, saved in the project's UI state. In an open file they are
// Monaco model decorations, so they move with edits; their lines are read back after each edit.
import { signal } from '@preact/signals';
import { monacoApi } from '../../monaco/load';
import type { monaco } from '../../monaco/setup';
import { dock } from '../../kernel/panels';
import { loadUiState, registerStateSection, scheduleSave } from '../../kernel/uiState';

export type BreakpointMap = Record<string, number[]>;

export interface ExceptionFilter {
  filter: string;
  label: string;
}

/** debugpy's filters; the adapter's own list replaces these once a session has started. */
export const DEFAULT_EXCEPTION_FILTERS: ExceptionFilter[] = [
  { filter: 'raised', label: 'Raised Exceptions' },
  { filter: 'uncaught', label: 'Uncaught Exceptions' },
];

export const breakpoints = signal<BreakpointMap>({});
export const exceptionFilters = signal<string[]>(['uncaught']);
/** Called after breakpoints of a file changed (the debugger re-sends them). */
export const breakpointListeners = new Set<(path: string) => void>();

let loaded = false;
const tracked = new Map<monaco.editor.ITextModel, { path: string; ids: string[]; lineCount: number }>();

/** Called for a model's lines only: Monaco has loaded by then. */
function decorations(lines: number[]): monaco.editor.IModelDeltaDecoration[] {
  const monaco = monacoApi();
  const options: monaco.editor.IModelDecorationOptions = {
    glyphMarginClassName: 'bp-glyph',
    glyphMarginHoverMessage: { value: 'Breakpoint' },
    stickiness: monaco.editor.TrackedRangeStickiness.NeverGrowsWhenTypingAtEdges,
  };
  return lines.map((line) => ({ range: new monaco.Range(line, 1, line, 1), options }));
}

function setLines(path: string, lines: number[]): void {
  const next = { ...breakpoints.value };
  const sorted = [...new Set(lines)].sort((a, b) => a - b);
  if (sorted.length) next[path] = sorted;
  else delete next[path];
  breakpoints.value = next;
  scheduleSave(dock());
  breakpointListeners.forEach((listener) => listener(path));
}

/** Lines of the decorations as they are now, after whatever edits happened. */
function readBack(model: monaco.editor.ITextModel): void {
  const entry = tracked.get(model);
  if (!entry) return;
  const lines = entry.ids.map((id) => model.getDecorationRange(id)?.startLineNumber).filter((l): l is number => !!l);
  const before = breakpoints.value[entry.path] ?? [];
  if (lines.length === before.length && lines.every((l, i) => l === before[i])) return;
  setLines(entry.path, lines);
  // Two breakpoints pushed onto one line become one decoration.
  entry.ids = model.deltaDecorations(entry.ids, decorations(breakpoints.value[entry.path] ?? []));
}

/** Puts a file's breakpoints on its model (once per model) and follows the model's edits. */
export function trackModel(path: string, model: monaco.editor.ITextModel): void {
  if (tracked.has(model)) return;
  const ids = model.deltaDecorations([], decorations(breakpoints.value[path] ?? []));
  tracked.set(model, { path, ids, lineCount: model.getLineCount() });
  model.onDidChangeContent((ev) => {
    const entry = tracked.get(model);
    if (entry && replacedWhole(ev, entry.lineCount)) redraw(path);
    else readBack(model);
    if (entry) entry.lineCount = model.getLineCount();
  });
  model.onWillDispose(() => tracked.delete(model));
}

/** A reload from disk replaces all text: decorations would collapse onto line 1, so the lines
 * are kept as they were (within the new length) instead. */
function replacedWhole(ev: monaco.editor.IModelContentChangedEvent, lineCount: number): boolean {
  return ev.changes.some((c) => c.range.startLineNumber === 1 && c.range.startColumn === 1 && c.range.endLineNumber >= lineCount && lineCount > 1);
}

function redraw(path: string): void {
  for (const [model, entry] of tracked) {
    if (entry.path !== path) continue;
    const lines = (breakpoints.value[path] ?? []).filter((line) => line <= model.getLineCount());
    entry.ids = model.deltaDecorations(entry.ids, decorations(lines));
  }
}

export function toggleBreakpoint(path: string, line: number): void {
  const lines = breakpoints.value[path] ?? [];
  setLines(path, lines.includes(line) ? lines.filter((l) => l !== line) : [...lines, line]);
  redraw(path);
}

export function removeBreakpoint(path: string, line: number): void {
  setLines(path, (breakpoints.value[path] ?? []).filter((l) => l !== line));
  redraw(path);
}

export function setExceptionFilter(filter: string, on: boolean): void {
  const rest = exceptionFilters.value.filter((f) => f !== filter);
  exceptionFilters.value = on ? [...rest, filter] : rest;
  scheduleSave(dock());
  breakpointListeners.forEach((listener) => listener(''));
}

interface SavedBreakpoints {
  lines?: BreakpointMap;
  exceptions?: string[];
}

export async function loadBreakpoints(): Promise<void> {
  registerStateSection('breakpoints', () =>
    loaded ? { lines: breakpoints.value, exceptions: exceptionFilters.value } : undefined,
  );
  const saved = ((await loadUiState()) as { breakpoints?: SavedBreakpoints }).breakpoints ?? {};
  // Breakpoints set before the saved ones arrived are kept alongside them.
  const merged: BreakpointMap = { ...(saved.lines ?? {}) };
  for (const [path, lines] of Object.entries(breakpoints.value)) merged[path] = [...new Set([...(merged[path] ?? []), ...lines])];
  breakpoints.value = merged;
  if (Array.isArray(saved.exceptions)) exceptionFilters.value = saved.exceptions;
  loaded = true;
  Object.keys(merged).forEach(redraw);
}
