// The bottom bar: connection state, the current file and its save state, and the editor's cursor,
// indentation, encoding, end of line and language; the other features' items (the branch, the
// problems, the team) are registered into its places (kernel/statusBar.ts).
import { docsVersion, getDoc, type SaveState } from '../../kernel/editor';
import { activePath } from '../../kernel/active';
import { statusItems, type StatusSlot } from '../../kernel/statusBar';
import { editorInfo } from './editorInfo';
import { session } from '../../kernel/session';

const CONNECTION_LABELS = {
  connecting: 'Connecting…',
  connected: 'Connected',
  reconnecting: 'Reconnecting…',
  offline: 'Offline',
  refused: 'Not allowed',
} as const;

const LANGUAGE_NAMES: Record<string, string> = {
  python: 'Python',
  markdown: 'Markdown',
  json: 'JSON',
  yaml: 'YAML',
  plaintext: 'Plain Text',
  javascript: 'JavaScript',
  typescript: 'TypeScript',
  shell: 'Shell',
  ini: 'INI',
  cpp: 'C++',
  html: 'HTML',
  css: 'CSS',
};

const SAVE_LABELS: Record<SaveState, string> = {
  clean: 'Saved',
  dirty: 'Unsaved changes',
  saving: 'Saving…',
  error: 'Save failed',
};

function EditorInfoItems({ path }: { path: string | null }) {
  const info = editorInfo.value;
  if (!info || info.path !== path) return null;
  return (
    <>
      <span class="status-item" data-testid="status-cursor">Ln {info.line}, Col {info.column}{info.selected ? ` (${info.selected} selected)` : ''}</span>
      <span class="status-item" data-testid="status-indent">{info.indent}</span>
      <span class="status-item" data-testid="status-encoding">{info.encoding}</span>
      <span class="status-item" data-testid="status-eol">{info.eol}</span>
      <span class="status-item" data-testid="status-language">{LANGUAGE_NAMES[info.language] ?? info.language}</span>
    </>
  );
}

function Slot({ slot }: { slot: StatusSlot }) {
  return <>{statusItems(slot).map(({ id, component: Item }) => <Item key={id} />)}</>;
}

export function StatusBar({ version }: { version: string }) {
  const socket = session().socket;
  const connection = socket.state.value;
  const refusal = connection === 'refused' ? `: ${socket.refusal.value ?? ''}` : '';
  const path = activePath.value;
  void docsVersion.value;
  const doc = path ? getDoc(path) : undefined;
  const save = doc ? doc.state.value : null;
  return (
    <footer class={`statusbar conn-${connection}`} data-testid="statusbar">
      <span class="status-item" data-testid="status-connection" data-state={connection}>
        <span class="status-dot" aria-hidden="true" />
        {CONNECTION_LABELS[connection]}{refusal}
      </span>
      <Slot slot="after-connection" />
      <span class="status-item mono" data-testid="status-file">{path ?? ''}</span>
      {save && (
        <span class={`status-item save-${save}`} data-testid="status-save" data-state={save}>
          {doc?.disk.value ? 'Changed on disk · ' : ''}{SAVE_LABELS[save]}
        </span>
      )}
      <Slot slot="after-save" />
      <span class="status-spacer" />
      <EditorInfoItems path={path} />
      <Slot slot="before-version" />
      <span class="status-item muted">MNN Workbench {version}</span>
    </footer>
  );
}
