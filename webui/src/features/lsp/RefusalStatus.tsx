// The status bar's item while the server refuses this person the language server (refusal.ts).
import { languageServerRefusal } from './refusal';

export function RefusalStatus() {
  if (!languageServerRefusal.value) return null;
  return (
    <span class="status-item muted" data-testid="status-lsp-refused">
      Python language features not allowed: {languageServerRefusal.value}
    </span>
  );
}
