import { signal } from '@preact/signals';

export type TrainingDialog = 'new-job' | 'pai-settings' | 'interpreter' | 'ray-settings' | 'sweep' | 'rerun';

/** The Training panel's open dialog, if any. */
export const openDialog = signal<TrainingDialog | null>(null);

/** The job "Run again…" repeats (the `rerun` dialog). */
export const rerunOf = signal<string | null>(null);
