// The smaller debug views: watch expressions, the call stack and the breakpoints list with the
// exception breakpoints, each in a collapsible section.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { openEditor } from '../../kernel/editor';
import { breakpoints, exceptionFilters, removeBreakpoint, setExceptionFilter } from './breakpoints';
import { evaluateWatches, filters, frames, projectPath, selectedFrame, selectFrame, watches, watchValues } from './debugger';

export function Section(props: { title: string; testid: string; grow?: boolean; actions?: ComponentChildren; children: ComponentChildren }) {
  const [open, setOpen] = useState(true);
  return (
    <section class={open && props.grow ? 'debug-section grow' : 'debug-section'} data-testid={props.testid}>
      <header class="section-header" onClick={() => setOpen(!open)}>
        <span class={open ? 'twisty open' : 'twisty'} />
        <span class="section-title">{props.title}</span>
        <span class="section-actions" onClick={(ev) => ev.stopPropagation()}>{open && props.actions}</span>
      </header>
      {open && <div class="section-body">{props.children}</div>}
    </section>
  );
}

export function WatchView() {
  const [draft, setDraft] = useState('');
  const add = (ev: Event) => {
    ev.preventDefault();
    const expression = draft.trim();
    if (!expression || watches.value.includes(expression)) return;
    watches.value = [...watches.value, expression];
    setDraft('');
    void evaluateWatches();
  };
  return (
    <div class="watch-list">
      {watches.value.map((expression) => {
        const result = watchValues.value[expression];
        return (
          <div key={expression} class="var-row watch-row" data-testid="watch" data-expression={expression}>
            <span class="var-name">{expression}</span>
            <span class="var-sep">: </span>
            <span class={result?.error ? 'var-value var-error' : 'var-value'} data-testid="watch-value">{result ? result.value : 'not available'}</span>
            <button class="icon-btn row-remove" aria-label="Remove watch" onClick={() => (watches.value = watches.value.filter((w) => w !== expression))}>×</button>
          </div>
        );
      })}
      <form onSubmit={add}>
        <input class="watch-input mono" data-testid="watch-input" placeholder="Add expression" value={draft} onInput={(ev) => setDraft(ev.currentTarget.value)} />
      </form>
    </div>
  );
}

export function CallStackView() {
  if (!frames.value.length) return <div class="section-note">Not paused.</div>;
  return (
    <div class="call-stack" data-testid="call-stack">
      {frames.value.map((frame) => {
        const path = projectPath(frame.source?.path);
        const where = path ?? frame.source?.name ?? frame.source?.path ?? '';
        return (
          <div key={frame.id} class={frame.id === selectedFrame.value ? 'frame-row selected' : path ? 'frame-row' : 'frame-row external'}
            data-testid="stack-frame" onClick={() => void selectFrame(frame)}>
            <span class="frame-name">{frame.name}</span>
            <span class="frame-where muted">{where.slice(where.lastIndexOf('/') + 1)}:{frame.line}</span>
          </div>
        );
      })}
    </div>
  );
}

export function BreakpointsView() {
  const entries = Object.entries(breakpoints.value).flatMap(([path, lines]) => lines.map((line) => ({ path, line })));
  return (
    <div class="bp-list">
      {filters.value.map((f) => (
        <label key={f.filter} class="bp-row checkbox" data-testid="exception-filter" data-filter={f.filter}>
          <input type="checkbox" checked={exceptionFilters.value.includes(f.filter)} onChange={(ev) => setExceptionFilter(f.filter, ev.currentTarget.checked)} />
          {f.label}
        </label>
      ))}
      {entries.map(({ path, line }) => (
        <div key={`${path}:${line}`} class="bp-row" data-testid="breakpoint" data-path={path} data-line={line} onClick={() => openEditor(path)}>
          <span class="bp-dot" />
          <span class="bp-file">{path.slice(path.lastIndexOf('/') + 1)}</span>
          <span class="muted bp-dir">{path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : ''}</span>
          <span class="bp-line muted">{line}</span>
          <button class="icon-btn row-remove" aria-label="Remove breakpoint" onClick={(ev) => { ev.stopPropagation(); removeBreakpoint(path, line); }}>×</button>
        </div>
      ))}
    </div>
  );
}
