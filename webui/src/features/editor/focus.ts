/** A field outside `host` has the focus (the palette, a dialog's input): an editor that arrives
 * late, on a busy machine, must not take the typing away from it. */
export function typingElsewhere(host: HTMLElement): boolean {
  const active = document.activeElement;
  return (active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement || active instanceof HTMLSelectElement)
    && !host.contains(active);
}
