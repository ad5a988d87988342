import { signal } from '@preact/signals';

export type TrainingDialog = 'new-job' | 'pai-settings' | 'interpreter' | 'ray-settings' | 'sweep';

/** The Training panel's open dialog, if any. */
export const openDialog = signal<TrainingDialog | null>(null);
