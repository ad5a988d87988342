// The device console's text, kept while no console is open: a console panel opened later (or
// re-created by the dock) replays it, then follows new writes.

const LIMIT = 1_000_000;
let buffer = '';
const listeners = new Set<(text: string) => void>();

export function writeConsole(text: string): void {
  buffer += text;
  if (buffer.length > LIMIT) buffer = buffer.slice(buffer.length - LIMIT / 2);
  listeners.forEach((listener) => listener(text));
}

export function followConsole(listener: (text: string) => void): () => void {
  if (buffer) listener(buffer);
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const GREY = '\x1b[90m';
const RED = '\x1b[31m';
const RESET = '\x1b[0m';

export const systemLine = (text: string): void => writeConsole(`${GREY}${text}${RESET}\n`);
export const errorText = (text: string): void => writeConsole(`${RED}${text}${RESET}`);
