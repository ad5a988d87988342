// Text fields of the spec form ↔ numbers.

/** "1, 3, 224, 224" → [1, 3, 224, 224]; empty → undefined; a non-number stays NaN, which the server refuses by field. */
export function numbersOf(text: string): number[] | undefined {
  const parts = text.split(/[\s,]+/).filter(Boolean);
  return parts.length ? parts.map(Number) : undefined;
}

export function optionalNumber(text: string): number | undefined {
  return text.trim() === '' ? undefined : Number(text);
}

export const listText = (values: number[] | undefined): string => (values ?? []).join(', ');
