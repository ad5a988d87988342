// What "Publish…" proposes for a model file, from its lineage: an id from the file name, the next
// version of that id in the team registry, the model, its source model and the README.
import { listDir } from '../../api/files';
import { getLineage, type LineageNode } from '../../api/lineage';
import { getCard, listMarket } from '../../api/market';

export interface PublishDraft {
  id: string;
  version: string;
  files: string[];
  name: string;
  /** From the id's previous version, to confirm; figures never carry over. */
  license: string;
  authors: string;
}

const SOURCE_MODELS = ['.onnx', '.tflite', '.pb', '.caffemodel'];

const stem = (path: string): string => path.slice(path.lastIndexOf('/') + 1).replace(/\.[^.]*$/, '');

/** A package id (`[a-z0-9][a-z0-9-]{0,63}`) from a file name. */
export function idFrom(path: string): string {
  const slug = stem(path).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  return (slug || 'model').slice(0, 64);
}

/** `1.0.0` for a new id, else the latest version with its last number raised. */
export function nextVersion(latest: string | null): string {
  if (!latest) return '1.0.0';
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(latest);
  return match ? `${match[1]}.${match[2]}.${Number(match[3]) + 1}` : `${latest}.1`;
}

/** Source models upstream of the file that are still in the project (the .onnx a job wrote). */
function sourceModels(nodes: LineageNode[]): string[] {
  return nodes.slice(1)
    .filter((n) => n.kind === 'file' && n.data.exists === true)
    .map((n) => String(n.data.path))
    .filter((p) => SOURCE_MODELS.some((ext) => p.toLowerCase().endsWith(ext)));
}

async function registryLatest(id: string): Promise<string | null> {
  const entries = await listMarket({ q: id, source: 'registry' });
  return entries.find((e) => e.id === id)?.latest ?? null;
}

/** License and authors of the id's latest registry version, for the publisher to confirm. */
async function previous(id: string, latest: string | null): Promise<{ license: string; authors: string }> {
  if (!latest) return { license: '', authors: '' };
  const card = await getCard(id, 'registry');
  const last = card.versions.find((v) => v.version === latest);
  return { license: last?.license ?? '', authors: last?.authors.join(', ') ?? '' };
}

async function readme(pid: string): Promise<string[]> {
  const entries = await listDir(pid, '');
  const found = entries.find((e) => e.type === 'file' && e.name.toLowerCase() === 'readme.md');
  return found ? [found.path] : [];
}

export async function draftFor(pid: string, path: string): Promise<PublishDraft> {
  const id = idFrom(path);
  const [graph, latest, readmes] = await Promise.all([getLineage(pid, path), registryLatest(id), readme(pid)]);
  const files = [...new Set([path, ...sourceModels(graph.nodes), ...readmes])];
  return { id, version: nextVersion(latest), files, name: stem(path), ...(await previous(id, latest)) };
}
