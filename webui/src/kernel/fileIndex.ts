// Every file path of the project, for quick open: walked folder by folder through the listing
// API (which already hides .git, caches and node_modules) and rebuilt after files come or go.
import { signal } from '@preact/signals';
import { listDir } from '../api/files';
import { pid, session } from './session';

const MAX_FILES = 20_000;
let index: Promise<string[]> | null = null;
/** Bumped when files came, went or were renamed: pickers of project files read them again. */
export const filesVersion = signal(0);

function invalidate(): void {
  index = null;
  filesVersion.value += 1;
}

async function walk(): Promise<string[]> {
  const files: string[] = [];
  let level = [''];
  while (level.length > 0 && files.length < MAX_FILES) {
    const listings = await Promise.all(level.map((dir) => listDir(pid(), dir).catch(() => [])));
    level = [];
    for (const entry of listings.flat()) {
      if (entry.type === 'dir') level.push(entry.path);
      else files.push(entry.path);
    }
  }
  return files.slice(0, MAX_FILES).sort();
}

export function projectFiles(): Promise<string[]> {
  index ??= walk();
  return index;
}

export function watchFileIndex(): void {
  session().socket.on('files', (msg) => {
    if (msg.data.changes.some((c) => c.kind !== 'modified')) invalidate();
  });
  session().socket.on('sys', (msg) => {
    if (msg.type === 'resync') invalidate();
  });
}

/** Lower is better; null when the query's letters do not appear in order. */
export function matchScore(path: string, query: string): number | null {
  const q = query.toLowerCase();
  const p = path.toLowerCase();
  const name = p.slice(p.lastIndexOf('/') + 1);
  if (name.startsWith(q)) return 0;
  if (name.includes(q)) return 1;
  if (p.includes(q)) return 2;
  let at = 0;
  for (const ch of q) {
    at = p.indexOf(ch, at) + 1;
    if (at === 0) return null;
  }
  return 3;
}

export function search(files: string[], query: string, limit = 50): string[] {
  if (!query) return files.slice(0, limit);
  const scored: [number, string][] = [];
  for (const path of files) {
    const score = matchScore(path, query);
    if (score !== null) scored.push([score, path]);
  }
  scored.sort((a, b) => a[0] - b[0] || a[1].length - b[1].length || a[1].localeCompare(b[1]));
  return scored.slice(0, limit).map(([, path]) => path);
}
