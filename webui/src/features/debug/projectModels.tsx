// The project's `.mnn` models, for the pickers of the on-device benchmark and tensor watch.
import { useEffect, useState } from 'preact/hooks';
import { projectFiles } from '../quickopen/fileIndex';

/** The models found, and the picked one (the first found until the user picks). */
export function useProjectModels(): [string[], string, (model: string) => void] {
  const [models, setModels] = useState<string[]>([]);
  const [model, setModel] = useState('');
  useEffect(() => {
    projectFiles().then((files) => {
      const found = files.filter((f) => f.endsWith('.mnn'));
      setModels(found);
      setModel((m) => m || found[0] || '');
    }, () => undefined);
  }, []);
  return [models, model, setModel];
}

export function ModelSelect({ models, model, onPick, testid }: { models: string[]; model: string; onPick: (m: string) => void; testid: string }) {
  return (
    <select data-testid={testid} value={model} onChange={(ev) => onPick(ev.currentTarget.value)}>
      {!models.length && <option value="">No .mnn model in the project</option>}
      {models.map((m) => <option key={m} value={m}>{m}</option>)}
    </select>
  );
}
