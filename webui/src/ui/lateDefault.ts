// A default that reaches a text field after the field is shown — the first file of a list that
// loads, "origin" once the remotes are known — is taken only while the field is empty. Taken
// while the person is already in the field, it is selected, so their first key replaces it:
// set with the caret after it, it landed between the click and the first key and the keys were
// appended to it ("coins.pngmany").
import type { RefObject } from 'preact';
import type { Dispatch, StateUpdater } from 'preact/hooks';

export function offerDefault(
  field: RefObject<HTMLInputElement | null>, set: Dispatch<StateUpdater<string>>, value: string,
): void {
  set((current) => current || value);
  const input = field.current;
  if (input && input === document.activeElement && input.value === '' && value) {
    input.value = value; // now rather than at the next render, for the selection to cover it
    input.select();
  }
}
