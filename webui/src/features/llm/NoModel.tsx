// The MNN-LLM panel on a folder that holds no model: what it needs, and the project's folders that
// do (an export to chat with, a Hugging Face-format folder to export), each one click away.
import { useEffect, useState } from 'preact/hooks';
import { EmptyState } from '../../ui/EmptyState';
import { projectFiles } from '../../kernel/fileIndex';
import { openLlm } from './open';

const SHOWN = 8;
const WEIGHTS = /\.(safetensors|bin)$/;

export interface ModelFolder {
  folder: string;
  kind: 'export' | 'source';
}

/** Folders holding `llm_config.json` (an export), or `config.json` beside weights (a source). */
export function modelFolders(paths: string[]): ModelFolder[] {
  const byFolder = new Map<string, Set<string>>();
  for (const path of paths) {
    const cut = path.lastIndexOf('/');
    const folder = cut < 0 ? '' : path.slice(0, cut);
    if (!byFolder.has(folder)) byFolder.set(folder, new Set());
    byFolder.get(folder)!.add(path.slice(cut + 1));
  }
  const found: ModelFolder[] = [];
  for (const [folder, names] of byFolder) {
    if (!folder) continue;
    if (names.has('llm_config.json')) found.push({ folder, kind: 'export' });
    else if (names.has('config.json') && [...names].some((n) => WEIGHTS.test(n))) found.push({ folder, kind: 'source' });
  }
  // Exports first: they are ready to chat with.
  return found.sort((a, b) => a.kind.localeCompare(b.kind) || a.folder.localeCompare(b.folder));
}

function FolderLinks({ folders }: { folders: ModelFolder[] }) {
  return (
    <ul class="llm-model-folders" data-testid="llm-model-folders">
      {folders.slice(0, SHOWN).map((f) => (
        <li key={f.folder}>
          <button type="button" class="btn btn-small" data-testid="llm-model-folder" data-folder={f.folder} onClick={() => openLlm(f.folder)}>
            {f.kind === 'export' ? 'Chat with' : 'Export'} {f.folder}…
          </button>
        </li>
      ))}
    </ul>
  );
}

export function NoModel({ folder }: { folder: string }) {
  const [folders, setFolders] = useState<ModelFolder[] | null>(null);
  useEffect(() => {
    projectFiles().then((paths) => setFolders(modelFolders(paths).filter((f) => f.folder !== folder)), () => setFolders([]));
  }, [folder]);
  return (
    <EmptyState testid="llm-no-model" title={`No MNN-LLM model in ${folder}`}>
      <p>MNN-LLM chats with an exported model (a folder with <code>llm_config.json</code>) and exports a
        Hugging Face-format model (<code>config.json</code> and its weights); {folder} holds neither.</p>
      {folders && folders.length > 0 && <FolderLinks folders={folders} />}
      {folders && folders.length === 0 && (
        <p data-testid="llm-no-model-folders">This project has no such folder yet: add a Hugging Face-format model
          folder, then choose <b>MNN-LLM: export, chat, benchmark…</b> on it in the file tree.</p>
      )}
    </EmptyState>
  );
}
