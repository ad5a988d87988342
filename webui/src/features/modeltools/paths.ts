// The project's folders and model files, for the pickers of the tool forms (calibration folder,
// model, reference). Read breadth-first and bounded, so a huge project cannot stall the form.
import { listDir } from '../../api/files';
import { pid } from '../../kernel/session';
import { isModelFile } from './menu';

const MAX_DIRS = 300;
const SKIPPED = new Set(['.git', 'node_modules', '.venv', '__pycache__']);

export interface ProjectPaths {
  dirs: string[];
  models: string[];
}

export async function projectPaths(): Promise<ProjectPaths> {
  const found: ProjectPaths = { dirs: [], models: [] };
  let level = [''];
  let read = 0;
  while (level.length && read < MAX_DIRS) {
    const batch = level.slice(0, MAX_DIRS - read);
    read += batch.length;
    const listings = await Promise.all(batch.map((dir) => listDir(pid(), dir).catch(() => [])));
    level = [];
    for (const entry of listings.flat()) {
      if (entry.type === 'dir' && !SKIPPED.has(entry.name)) {
        found.dirs.push(entry.path);
        level.push(entry.path);
      } else if (entry.type === 'file' && isModelFile(entry.path)) {
        found.models.push(entry.path);
      }
    }
  }
  return found;
}
