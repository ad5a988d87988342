// A person's keyboard shortcuts on the server: `GET|PUT /api/keybindings` (docs/ide.md).
import { request } from '../../api/client';

/** Command id → its keys where a person changed them (`[]`: no key). */
export type Overrides = Record<string, string[]>;

export const putKeybindings = (bindings: Overrides) =>
  request<{ bindings: Overrides }>('PUT', '/api/keybindings', { json: { bindings } });
