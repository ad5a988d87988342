// Run and Debug: its panels, the breakpoint gutter in every editor, the debug commands and their
// keys (F5, F9, F10, …), and the device events it follows.
import { effect } from '@preact/signals';
import { registerEditorExtension } from '../../kernel/editorExtensions';
import { currentEditor, openEditor } from '../../kernel/editor';
import { registerCommand } from '../../kernel/commands';
import { notify } from '../../ui/toast';
import { activePath } from '../../kernel/active';
import { lazyPanel } from '../../kernel/lazyPanel';
import { registerPanel, registerTitleAction } from '../../kernel/panels';
import { loadBreakpoints, toggleBreakpoint } from './breakpoints';
import { currentLocation, debugState, step, wireDapEvents } from './debugger';
import { DebugConsole } from './DebugConsole';
import { debugGutter } from './gutter';
import { CONSOLE_PANEL, openConsole, openPerf, openRepl, openRunPanel, PERF_PANEL, REPL_PANEL, revealConsoleQuietly, RUN_PANEL } from './open';
import { wirePerfEvents } from './perf';
import { deploy, pickedDevice, runState, start, stop, wireRunEvents } from './run';
import { RunPanel } from './RunPanel';
import { wireWatchEvents } from './watch';
import './debug.css';
import { registerOpener } from '../../kernel/openers';

/** F9: a breakpoint on the cursor's line of the current editor, or off it. */
function toggleBreakpointAtCursor(): void {
  const editor = currentEditor();
  const line = editor?.getPosition()?.lineNumber;
  const path = activePath.value;
  if (!editor || !line || !path) {
    notify('Open a file first: a breakpoint goes on the line the cursor is on.');
    return;
  }
  toggleBreakpoint(path, line);
}

/** The debugger's commands; a key whose command cannot run now does what it would without it. */
function registerDebugCommands(): void {
  const category = 'Debug';
  const stopped = () => debugState.value === 'stopped';
  const idle = () => runState.value === 'idle' && Boolean(pickedDevice.value);
  registerCommand({ id: 'debug.start', label: 'Start debugging', category, shortcut: 'F5',
    enabled: () => debugState.value === 'inactive' && idle(), run: () => void start(true) });
  registerCommand({ id: 'debug.run', label: 'Run without debugging', category, shortcut: 'Ctrl+F5', enabled: idle, run: () => void start(false) });
  registerCommand({ id: 'debug.continue', label: 'Continue', category, shortcut: 'F5', enabled: stopped, run: () => step('continue') });
  registerCommand({ id: 'debug.stop', label: 'Stop', category, shortcut: 'Shift+F5', enabled: () => runState.value === 'running', run: stop });
  registerCommand({ id: 'debug.pause', label: 'Pause', category, shortcut: 'F6', enabled: () => debugState.value === 'running', run: () => step('pause') });
  registerCommand({ id: 'debug.step-over', label: 'Step over', category, shortcut: 'F10', enabled: stopped, run: () => step('next') });
  registerCommand({ id: 'debug.step-into', label: 'Step into', category, shortcut: 'F11', enabled: stopped, run: () => step('stepIn') });
  registerCommand({ id: 'debug.step-out', label: 'Step out', category, shortcut: 'Shift+F11', enabled: stopped, run: () => step('stepOut') });
  registerCommand({ id: 'debug.toggle-breakpoint', label: 'Toggle breakpoint', category, shortcut: 'F9', run: toggleBreakpointAtCursor });
  registerCommand({ id: 'debug.deploy', label: "Copy the project's changed files to the device", category,
    enabled: idle, run: () => void deploy() });
  registerCommand({ id: 'debug.console', label: 'Show the device console', category, run: openConsole });
  registerCommand({ id: 'debug.repl', label: 'Show the debug console', category, shortcut: 'Ctrl+Shift+Y', run: openRepl });
}

export function registerDebugFeature(): void {
  registerOpener('repl', openRepl);
  registerPanel(RUN_PANEL, () => <RunPanel />);
  registerPanel(REPL_PANEL, () => <DebugConsole />);
  // xterm and uPlot load with the first console or Perf panel, not with the project page.
  registerPanel(CONSOLE_PANEL, lazyPanel(() => import('./ConsolePanel').then((m) => () => <m.ConsolePanel />)));
  registerPanel(PERF_PANEL, lazyPanel(() => import('./PerfPanel').then((m) => () => <m.PerfPanel />)));
  registerTitleAction({ id: 'run-debug', label: 'Run and Debug', shortcut: 'Ctrl+Shift+D', glyph: '⬣', icon: 'debug-alt', run: openRunPanel });
  registerTitleAction({ id: 'perf', label: 'Perf', category: 'Debug', glyph: '∿', icon: 'pulse', run: openPerf });
  registerDebugCommands();
  registerEditorExtension(debugGutter);
  wireRunEvents();
  wireDapEvents();
  wirePerfEvents();
  wireWatchEvents();
  void loadBreakpoints();
  // A run shows its console; a stop shows its line.
  effect(() => {
    if (runState.value === 'starting') revealConsoleQuietly();
  });
  effect(() => {
    const location = currentLocation.value;
    if (location) openEditor(location.path);
  });
}
