// Run and Debug: its panels, the breakpoint gutter in every editor, the debug keys, and the
// device events it follows.
import { effect } from '@preact/signals';
import { registerEditorExtension } from '../editor/extensions';
import { openEditor } from '../editor/openEditor';
import { lazyPanel } from '../workbench/lazyPanel';
import { registerPanel, registerTitleAction } from '../workbench/panels';
import { loadBreakpoints } from './breakpoints';
import { currentLocation, debugState, step, wireDapEvents } from './debugger';
import { DebugConsole } from './DebugConsole';
import { debugGutter } from './gutter';
import { CONSOLE_PANEL, openPerf, openRunPanel, PERF_PANEL, REPL_PANEL, revealConsoleQuietly, RUN_PANEL } from './open';
import { wirePerfEvents } from './perf';
import { pickedDevice, runState, start, stop, wireRunEvents } from './run';
import { RunPanel } from './RunPanel';
import { wireWatchEvents } from './watch';
import './debug.css';

function onDebugKey(ev: KeyboardEvent): void {
  const state = debugState.value;
  const key = `${ev.shiftKey ? 'Shift+' : ''}${ev.key}`;
  const actions: Record<string, (() => void) | undefined> = {
    F5: state === 'stopped' ? () => step('continue') : state === 'inactive' && runState.value === 'idle' && pickedDevice.value ? () => void start(true) : undefined,
    'Shift+F5': runState.value === 'running' ? stop : undefined,
    F6: state === 'running' ? () => step('pause') : undefined,
    F10: state === 'stopped' ? () => step('next') : undefined,
    F11: state === 'stopped' ? () => step('stepIn') : undefined,
    'Shift+F11': state === 'stopped' ? () => step('stepOut') : undefined,
  };
  const action = actions[key];
  if (!action) return;
  ev.preventDefault();
  ev.stopPropagation();
  action();
}

export function registerDebugFeature(): void {
  registerPanel(RUN_PANEL, () => <RunPanel />);
  registerPanel(REPL_PANEL, () => <DebugConsole />);
  // xterm and uPlot load with the first console or Perf panel, not with the project page.
  registerPanel(CONSOLE_PANEL, lazyPanel(() => import('./ConsolePanel').then((m) => () => <m.ConsolePanel />)));
  registerPanel(PERF_PANEL, lazyPanel(() => import('./PerfPanel').then((m) => () => <m.PerfPanel />)));
  registerTitleAction({ id: 'run-debug', label: 'Run and Debug', glyph: '⬣', run: openRunPanel });
  registerTitleAction({ id: 'perf', label: 'Perf', glyph: '∿', run: openPerf });
  registerEditorExtension(debugGutter);
  wireRunEvents();
  wireDapEvents();
  wirePerfEvents();
  wireWatchEvents();
  void loadBreakpoints();
  window.addEventListener('keydown', onDebugKey, true);
  // A run shows its console; a stop shows its line.
  effect(() => {
    if (runState.value === 'starting') revealConsoleQuietly();
  });
  effect(() => {
    const location = currentLocation.value;
    if (location) openEditor(location.path);
  });
}
