// The Problems panel's store: the language server's diagnostics of every open Python file (as it
// publishes them) and of every Python file changed on disk lately (asked for with
// `mnnwb/diagnostics`: the server lints the file as it is on disk), by project path.
import { signal } from '@preact/signals';
import { session } from '../../kernel/session';
import type { LspClient } from './client';
import type { LspDiagnostic } from './convert';
import { isSynced, pathOf, uriOf } from './documents';

export const problems = signal<ReadonlyMap<string, LspDiagnostic[]>>(new Map());

// The files changed lately (newest last), kept in the panel after their editors close.
const MAX_RECENT = 100;
const recent = new Set<string>();
const LINT_DELAY_MS = 300;
let waiting = new Set<string>();
let timer: number | undefined;
let lsp: LspClient | null = null;

const isPythonPath = (path: string): boolean => path.endsWith('.py');

function setProblems(path: string, diagnostics: LspDiagnostic[]): void {
  const next = new Map(problems.value);
  if (diagnostics.length) next.set(path, diagnostics);
  else next.delete(path);
  problems.value = next;
}

function remember(path: string): void {
  recent.delete(path);
  recent.add(path);
  if (recent.size > MAX_RECENT) {
    const oldest = recent.values().next().value as string;
    recent.delete(oldest);
    if (!isSynced(oldest)) setProblems(oldest, []);
  }
}

async function lintNow(): Promise<void> {
  const paths = [...waiting].filter((path) => !isSynced(path));
  waiting = new Set();
  if (!lsp?.ready || !paths.length) return;
  const client = lsp;
  const found = await client.call<{ uri: string; diagnostics: LspDiagnostic[] }[]>(
    'mnnwb/diagnostics', { uris: paths.map((path) => uriOf(client, path)) }).catch(() => []);
  for (const { uri, diagnostics } of found) {
    const path = pathOf(client, uri);
    if (path !== null && !isSynced(path)) setProblems(path, diagnostics);
  }
}

function lintSoon(path: string): void {
  waiting.add(path);
  window.clearTimeout(timer);
  timer = window.setTimeout(() => void lintNow(), LINT_DELAY_MS);
}

/** What the server published for a file an editor has open (empty when it closes). */
export function published(client: LspClient, uri: string, diagnostics: LspDiagnostic[]): void {
  lsp = client;
  const path = pathOf(client, uri);
  if (path === null) return;
  if (!diagnostics.length && !isSynced(path) && recent.has(path)) {
    lintSoon(path); // its editor closed: keep it listed as it is on disk
    return;
  }
  setProblems(path, diagnostics);
}

/** Python files changed on disk (by anyone, this tab included) are linted as they now are. */
export function watchChangedFiles(client: () => LspClient | null): void {
  session().socket.on('files', (msg) => {
    lsp = client();
    for (const change of msg.data.changes) {
      if (!isPythonPath(change.path)) continue;
      if (change.kind === 'deleted') {
        recent.delete(change.path);
        setProblems(change.path, []);
        continue;
      }
      remember(change.path);
      if (!isSynced(change.path)) lintSoon(change.path);
    }
  });
}

export function counts(): { errors: number; warnings: number } {
  let errors = 0;
  let warnings = 0;
  for (const diagnostics of problems.value.values()) {
    for (const d of diagnostics) {
      if ((d.severity ?? 1) === 1) errors += 1;
      else if (d.severity === 2) warnings += 1;
    }
  }
  return { errors, warnings };
}
