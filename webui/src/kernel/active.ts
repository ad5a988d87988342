import { signal } from '@preact/signals';

/** The path of the file in the active editor tab, or null when no editor is active. */
export const activePath = signal<string | null>(null);
