// The merge editor's result text: the merged runs joined with each conflict's chosen side, or
// with git's conflict markers where nothing was chosen yet.
import type { ConflictChunk } from '../../api/git';

export type Choice = 'ours' | 'theirs' | 'both' | null;

export const MARKER = '<<<<<<<';

function conflictText(chunk: ConflictChunk, choice: Choice): string {
  if (choice === 'ours') return chunk.ours;
  if (choice === 'theirs') return chunk.theirs;
  if (choice === 'both') return chunk.ours + chunk.theirs;
  const nl = (text: string) => (text === '' || text.endsWith('\n') ? text : `${text}\n`);
  return `${MARKER} ours\n${nl(chunk.ours)}=======\n${nl(chunk.theirs)}>>>>>>> theirs\n`;
}

export function buildResult(chunks: ConflictChunk[], choices: Choice[]): string {
  let n = 0;
  return chunks.map((c) => (c.kind === 'merged' ? c.text : conflictText(c, choices[n++] ?? null))).join('');
}
