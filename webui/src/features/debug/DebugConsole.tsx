// The evaluate console: expressions run in the selected frame of the paused program.
import { useEffect, useRef, useState } from 'preact/hooks';
import { debugState, evaluateInRepl, repl } from './debugger';

export function DebugConsole() {
  const [draft, setDraft] = useState('');
  const [history, setHistory] = useState<string[]>([]);
  const [cursor, setCursor] = useState(-1);
  const log = useRef<HTMLDivElement>(null);
  const entries = repl.value;
  useEffect(() => {
    log.current?.scrollTo(0, log.current.scrollHeight);
  }, [entries.length]);
  const submit = (ev: Event) => {
    ev.preventDefault();
    const expression = draft.trim();
    if (!expression) return;
    setHistory([...history, expression]);
    setCursor(-1);
    setDraft('');
    void evaluateInRepl(expression);
  };
  const recall = (ev: KeyboardEvent) => {
    if (ev.key !== 'ArrowUp' && ev.key !== 'ArrowDown') return;
    ev.preventDefault();
    const next = ev.key === 'ArrowUp' ? (cursor < 0 ? history.length - 1 : Math.max(0, cursor - 1)) : cursor < 0 ? -1 : cursor + 1;
    const index = next >= history.length ? -1 : next;
    setCursor(index);
    setDraft(index < 0 ? '' : history[index]);
  };
  return (
    <div class="repl" data-testid="debug-console">
      <div class="repl-log" ref={log}>
        {entries.map((entry, i) => (
          <div key={i} class="repl-entry">
            <div class="repl-input mono">› {entry.input}</div>
            <div class={entry.error ? 'repl-output mono var-error' : 'repl-output mono'} data-testid="repl-output">{entry.output}</div>
          </div>
        ))}
      </div>
      <form class="repl-form" onSubmit={submit}>
        <span class="repl-prompt">›</span>
        <input class="mono" data-testid="repl-input" value={draft} onKeyDown={recall}
          placeholder={debugState.value === 'stopped' ? 'Evaluate an expression in the selected frame' : 'Evaluate when the program is paused'}
          onInput={(ev) => setDraft(ev.currentTarget.value)} />
      </form>
    </div>
  );
}
