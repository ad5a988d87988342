// Run and Debug: the toolbar, then Variables, Watch, Call Stack and Breakpoints.
import { useEffect } from 'preact/hooks';
import { watchDevices } from '../../kernel/devices';
import { debugState, stopReason } from './debugger';
import { openConsole, openPerf, openRepl } from './open';
import { RunToolbar } from './RunToolbar';
import { BreakpointsView, CallStackView, Section, WatchView } from './Sections';
import { VariablesView } from './Variables';

export function RunPanel() {
  useEffect(() => watchDevices(), []);
  const state = debugState.value;
  return (
    <div class="run-panel" data-testid="run-panel">
      <div class="panel-toolbar">
        <span class="panel-toolbar-title">Run and Debug</span>
        <button class="icon-btn" title="Device Console" aria-label="Device Console" data-testid="open-console" onClick={openConsole}>▤</button>
        <button class="icon-btn" title="Debug Console (evaluate)" aria-label="Debug Console" data-testid="open-repl" onClick={openRepl}>›</button>
        <button class="icon-btn" title="Perf" aria-label="Perf" onClick={openPerf}>∿</button>
      </div>
      <RunToolbar />
      {state === 'stopped' && <div class="stop-banner" data-testid="stop-reason">Paused on {stopReason.value}</div>}
      <div class="debug-sections">
        <Section title="Variables" testid="section-variables" grow><VariablesView /></Section>
        <Section title="Watch" testid="section-watch"><WatchView /></Section>
        <Section title="Call Stack" testid="section-call-stack"><CallStackView /></Section>
        <Section title="Breakpoints" testid="section-breakpoints"><BreakpointsView /></Section>
      </div>
    </div>
  );
}
