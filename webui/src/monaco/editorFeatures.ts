// Monaco's editing features (find, folding, comments, multi-cursor, …) cost a few hundred ms of
// start-up, so they load after the first editor is usable. Editors attach a feature only when
// they are created, so the open editors are re-created (same model, view state and focus) once
// the features are in: `featuresLoaded` is the signal they re-create on.
import { signal } from '@preact/signals';

export const featuresLoaded = signal(false);
let started = false;

export function loadEditorFeatures(): void {
  if (started) return;
  started = true;
  void import('./features').then(() => {
    featuresLoaded.value = true;
  });
}
