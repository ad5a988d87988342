// The imports between feature folders that scripts/ui-structure.cjs still allows, each with why.
// Each points one way (a cycle between feature folders fails the check, listed or not), and an
// entry that no longer matches an import fails too (so the list only shrinks). The comment after
// each entry names the files used. What went before: the editor service (kernel/editor.ts),
// openers (kernel/openers.ts), the status bar's items (kernel/statusBar.ts), a binary file's view
// (kernel/fileViews.ts) and the file tree's menu (kernel/fileMenu.ts) are registered in the kernel,
// and the app hands the home page the market's and the team's items (app/mountHome.tsx).
'use strict';

/** The device run session (debug/run.ts: the picked device, deploy, run, stdin, its output) that
 * every feature running code on a device drives; a kernel service of its own, one day. */
const DEVICE_RUN = 'drives the device run session of the debugger';
/** A view of the model tools' runs (history, log, status, results) or their forms, reused by a
 * feature that starts tool runs of its own (Evaluate, the flow, the lineage, the LLM). */
const TOOL_RUNS = "shows or starts the model tools' runs with their views";
/** Uses a widget or store of the other feature that belongs to it. */
const WIDGET = "uses a widget or store of the other feature";

module.exports = new Map([
  ['datasets -> modeltools', TOOL_RUNS], // RunHistory.tsx RunLog.tsx StatusBadge.tsx format.ts paths.ts store.ts results/common.tsx open.ts
  ['debug -> devices', WIDGET], // NoDevice.tsx (no device paired: the way to pair one)
  ['flow -> debug', DEVICE_RUN], // open.ts projectModels.tsx run.ts
  ['flow -> modeltools', TOOL_RUNS], // fields.ts open.ts
  ['git -> checks', WIDGET], // CheckBadge.tsx store.ts ChecksSection.tsx openBudgets.tsx (the checks of a commit)
  ['lineage -> modeltools', TOOL_RUNS], // open.ts
  ['llm -> debug', DEVICE_RUN], // RunToolbar.tsx run.ts
  ['llm -> modeltools', TOOL_RUNS], // store.ts
  ['market -> lineage', WIDGET], // LineageView.tsx (a package's lineage)
  ['modeltools -> debug', DEVICE_RUN], // run.ts (the pipeline's camera on a device)
  ['playground -> debug', DEVICE_RUN], // run.ts breakpoints.ts kitLines.ts open.ts output.ts
]);
