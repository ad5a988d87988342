// Why the server refused this person the language server (a close with 1008, e.g. a viewer):
// shown once in the status bar instead of retrying.
import { signal } from '@preact/signals';

export const languageServerRefusal = signal<string | null>(null);
