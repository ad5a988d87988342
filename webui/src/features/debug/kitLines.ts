// A playground run's kit calls (`MNNWB_KIT {...}` lines, docs/playground.md) are the Playground
// panel's to draw, and a pipeline's frames on a camera (`MNNWB_PIPELINE {...}`, docs/pipelines.md)
// the Pipeline panel's, not the device console's to show: this takes them out of the stdout text.
// Text that may still become such a line waits for the rest of its line; anything else is shown
// at once (a prompt without a newline too). One filter per run's stream (a device run and a
// run on this machine may write at once).
const MARKS = ['MNNWB_KIT ', 'MNNWB_PIPELINE '];

export interface KitLineFilter {
  /** The text without the kit's lines. */
  strip(text: string): string;
  /** A new run starts at the start of a line with nothing held. */
  reset(): void;
}

export function kitLineFilter(): KitLineFilter {
  let held = '';
  let atLineStart = true;
  return {
    strip(text: string): string {
      let rest = held + text;
      held = '';
      let out = '';
      while (rest) {
        const newline = rest.indexOf('\n');
        const piece = newline < 0 ? rest : rest.slice(0, newline + 1);
        rest = newline < 0 ? '' : rest.slice(newline + 1);
        const kitLike = atLineStart && MARKS.some((mark) => piece.startsWith(mark) || mark.startsWith(piece));
        if (newline < 0 && kitLike) {
          held = piece; // not known yet: wait for the rest of the line
          break;
        }
        if (!(kitLike && MARKS.some((mark) => piece.startsWith(mark)))) out += piece;
        atLineStart = newline >= 0;
      }
      return out;
    },
    reset(): void {
      held = '';
      atLineStart = true;
    },
  };
}

const deviceRun = kitLineFilter();

/** The device run's stdout without the kit's lines. */
export function withoutKitCalls(text: string): string {
  return deviceRun.strip(text);
}

/** A new device run starts at the start of a line with nothing held. */
export function resetKitLines(): void {
  deviceRun.reset();
}
