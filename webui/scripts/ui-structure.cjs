// The web UI's structure check (docs/architecture.md, "Web UI structure"): reads the import graph of
// src/ with madge and fails (exit 1) on any import cycle between files, and on a feature folder
// (src/features/<name>/) importing another feature folder, except the pairs listed in EXCEPTIONS.
// A cycle between feature folders fails too, listed pairs or not: the listed pairs may only point
// one way. It prints the report either way: files, cycles between files, imports between feature
// folders and the feature folders that sit in a cycle with each other.
//
//   node scripts/ui-structure.cjs          (from webui/; `make test` runs it through
//                                           tests/webui/test_ui_structure.py)
//   node scripts/ui-structure.cjs DIR [EXCEPTIONS]
//                                          checks the tree DIR instead of src/, with the pairs
//                                          allowed in the file EXCEPTIONS (none without it); the
//                                          test shows a cycle and an unlisted import fail
//
// madge parses TypeScript with @typescript-eslint/typescript-estree, which needs the TypeScript 5
// JavaScript API. The project's `typescript` is 7 (the native compiler, no JavaScript API), so this
// process resolves `typescript` to the `typescript-api` alias (TypeScript 5) the type generator uses.
'use strict';
const Module = require('module');
const path = require('path');

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function resolveTypescriptApi(request, ...rest) {
  return resolveFilename.call(this, request === 'typescript' ? 'typescript-api' : request, ...rest);
};
const madge = require('madge');

/** Feature-to-feature imports allowed, as 'from -> to' with the reason. Aim: none. */
const EXCEPTIONS = require('./ui-structure-exceptions.cjs');

const ROOT = path.join(__dirname, '..');

/** The feature folder a file under src/ belongs to, or null outside src/features/. */
function featureOf(file) {
  const parts = file.split('/');
  return parts[0] === 'features' && parts.length > 2 ? parts[1] : null;
}

/** Edges 'from -> to' between feature folders, each with one example import. */
function featureEdges(graph) {
  const edges = new Map();
  for (const [file, deps] of Object.entries(graph)) {
    const from = featureOf(file);
    if (!from) continue;
    for (const dep of deps) {
      const to = featureOf(dep);
      if (to && to !== from && !edges.has(`${from} -> ${to}`)) edges.set(`${from} -> ${to}`, `${file} imports ${dep}`);
    }
  }
  return edges;
}

/** Strongly connected components with more than one folder (Tarjan), each sorted. */
function folderCycles(edges) {
  const next = new Map();
  for (const key of edges.keys()) {
    const [from, to] = key.split(' -> ');
    if (!next.has(from)) next.set(from, []);
    if (!next.has(to)) next.set(to, []);
    next.get(from).push(to);
  }
  const index = new Map(), low = new Map(), stack = [], onStack = new Set(), found = [];
  let counter = 0;
  const visit = (node) => {
    index.set(node, counter); low.set(node, counter); counter += 1;
    stack.push(node); onStack.add(node);
    for (const to of next.get(node)) {
      if (!index.has(to)) { visit(to); low.set(node, Math.min(low.get(node), low.get(to))); }
      else if (onStack.has(to)) low.set(node, Math.min(low.get(node), index.get(to)));
    }
    if (low.get(node) !== index.get(node)) return;
    const component = [];
    let member;
    do { member = stack.pop(); onStack.delete(member); component.push(member); } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of [...next.keys()].sort()) if (!index.has(node)) visit(node);
  return found;
}

/** Prints the report; returns the number of rule violations. */
function report(graph, fileCycles, exceptions) {
  const edges = featureEdges(graph);
  const components = folderCycles(edges);
  const folders = new Set(Object.keys(graph).map(featureOf).filter(Boolean));
  const inCycles = components.reduce((sum, c) => sum + c.length, 0);
  console.log(`files: ${Object.keys(graph).length}, feature folders: ${folders.size}`);
  console.log(`cycles between files: ${fileCycles.length}`);
  for (const cycle of fileCycles) console.log(`  ${cycle.join(' -> ')}`);
  console.log(`imports between feature folders: ${edges.size}`);
  console.log(`feature folders in a cycle: ${inCycles} (${components.length} group(s))`);
  for (const component of components) console.log(`  NOT ALLOWED, a cycle: ${component.join(', ')}`);
  let violations = fileCycles.length + components.length;
  for (const [edge, example] of [...edges].sort()) {
    const allowed = exceptions.get(edge);
    console.log(`  ${allowed ? 'allowed' : 'NOT ALLOWED'} ${edge} (${example})${allowed ? `: ${allowed}` : ''}`);
    if (!allowed) violations += 1;
  }
  for (const edge of exceptions.keys()) {
    if (!edges.has(edge)) { console.log(`  stale exception (no such import any more): ${edge}`); violations += 1; }
  }
  console.log(violations ? `FAILED: ${violations} violation(s)` : 'OK');
  return violations;
}

async function main() {
  const src = process.argv[2] ? path.resolve(process.argv[2]) : path.join(ROOT, 'src');
  const result = await madge(src, {
    fileExtensions: ['ts', 'tsx'],
    tsConfig: path.join(ROOT, 'tsconfig.json'),
    excludeRegExp: [/\.css$/],
  });
  const listed = process.argv[3] ? require(path.resolve(process.argv[3])) : new Map();
  const exceptions = process.argv[2] ? listed : EXCEPTIONS;
  process.exitCode = report(result.obj(), result.circular(), exceptions) ? 1 : 0;
}

main().catch((error) => { console.error(error); process.exitCode = 2; });
