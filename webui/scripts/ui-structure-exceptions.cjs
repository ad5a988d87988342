// The imports between feature folders that scripts/ui-structure.cjs still allows, each with why.
// The aim is none: each kind below has its way out, and an entry that no longer matches an import
// fails the check (so the list only shrinks). The comment after each entry names the files used.
'use strict';

/** Opens the other feature's panel through its open function; to become an entry in a kernel
 * registry of openers that each feature registers. */
const OPENS = "opens the other feature's panel";
/** A status-bar or home-page item drawn by another feature; to become an item it registers. */
const SHELL = "shows the other feature's status-bar or home-page item";
/** Uses a widget, store or helper of the other feature that is not moved down yet. */
const SHARED = "uses a widget, store or helper of the other feature";

module.exports = new Map([
  ['checks -> modeltools', OPENS], // diff/openDiff.ts
  ['datasets -> modeltools', SHARED], // RunHistory.tsx RunLog.tsx StatusBadge.tsx format.ts paths.ts store.ts results/common.tsx open.ts
  ['debug -> devices', SHARED], // NoDevice.tsx open.ts
  ['flow -> checks', OPENS], // openBudgets.tsx
  ['flow -> datasets', OPENS], // open.ts
  ['flow -> debug', SHARED], // open.ts projectModels.tsx run.ts
  ['flow -> devices', OPENS], // open.ts
  ['flow -> lineage', OPENS], // open.ts
  ['flow -> modeltools', SHARED], // fields.ts open.ts
  ['flow -> training', OPENS], // open.ts
  ['git -> checks', SHARED], // CheckBadge.tsx store.ts ChecksSection.tsx openBudgets.tsx
  ['git -> modeltools', SHARED], // ModelDiffSummary.tsx
  ['home -> market', SHELL], // HomeMarket.tsx
  ['home -> team', SHELL], // UserMenu.tsx
  ['keybindings -> debug', OPENS], // open.ts
  ['lineage -> datasets', OPENS], // open.ts
  ['lineage -> git', OPENS], // open.ts
  ['lineage -> modeltools', SHARED], // menu.ts open.ts
  ['lineage -> training', SHARED], // open.ts store.ts
  ['llm -> debug', SHARED], // RunToolbar.tsx run.ts
  ['llm -> modeltools', SHARED], // store.ts
  ['lsp -> devices', OPENS], // open.ts
  ['lsp -> search', OPENS], // reveal.ts
  ['market -> lineage', SHARED], // LineageView.tsx
  ['market -> modeltools', SHARED], // menu.ts (isModelFile)
  ['market -> preview', SHARED], // markdown.ts
  ['modeltools -> debug', SHARED], // run.ts
  ['palette -> keybindings', SHARED], // store.ts
  ['playground -> debug', SHARED], // run.ts breakpoints.ts kitLines.ts open.ts output.ts
  ['playground -> devices', OPENS], // open.ts
  ['search -> devices', OPENS], // open.ts
  ['terminal -> devices', OPENS], // open.ts
]);
