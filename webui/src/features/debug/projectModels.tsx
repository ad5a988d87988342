// The project's `.mnn` models, for the pickers of the on-device benchmark and tensor watch.
import { signal } from '@preact/signals';
import { useEffect, useState } from 'preact/hooks';
import { filesVersion, projectFiles } from '../../kernel/fileIndex';

/** The model the pickers show first while it exists (the flow's measure step sets it); the
 * user's own pick clears it. */
export const preferredModel = signal<string | null>(null);

/** The models found (again when files come or go), and the picked one (the preferred model, else
 * the first found until the user picks; a picked one that went away gives way to the first). */
export function useProjectModels(): [string[], string, (model: string) => void] {
  const [models, setModels] = useState<string[]>([]);
  const [model, setModel] = useState('');
  const version = filesVersion.value;
  const preferred = preferredModel.value;
  useEffect(() => {
    let live = true;
    projectFiles().then((files) => {
      if (!live) return;
      const found = files.filter((f) => f.endsWith('.mnn'));
      setModels(found);
      if (preferred && found.includes(preferred)) setModel(preferred);
      else setModel((m) => (m && found.includes(m) ? m : found[0] || ''));
    }, () => undefined);
    return () => void (live = false);
  }, [version, preferred]);
  const pick = (picked: string) => {
    preferredModel.value = null;
    setModel(picked);
  };
  return [models, model, pick];
}

export function ModelSelect({ models, model, onPick, testid }: { models: string[]; model: string; onPick: (m: string) => void; testid: string }) {
  return (
    <select data-testid={testid} value={model} onChange={(ev) => onPick(ev.currentTarget.value)}>
      {!models.length && <option value="">No .mnn model in the project</option>}
      {models.map((m) => <option key={m} value={m}>{m}</option>)}
    </select>
  );
}
