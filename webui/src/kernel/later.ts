// Jobs and tool runs only move forward: queued, running, then one of the ends. A copy of one
// reaches the tab two ways, the answer to a request and the socket's events, and the answer can
// come after the socket told of the next step (a short run's end before the answer to its start):
// that copy is behind and must not take the shown one back.
const STAGE: Record<string, number> = { queued: 0, running: 1 }; // every other status is an end

const stage = (status: string): number => STAGE[status] ?? 2;

/** The copy to show: ``incoming`` unless ``shown`` is further along. */
export function later<T extends { status: string }>(shown: T | undefined, incoming: T): T {
  return shown && stage(shown.status) > stage(incoming.status) ? shown : incoming;
}
