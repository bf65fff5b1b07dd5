function bigrams(text: string): Map<string, number> {
  const grams = new Map<string, number>();
  for (let i = 0; i < text.length - 1; i += 1) {
    const gram = text.slice(i, i + 2);
    grams.set(gram, (grams.get(gram) ?? 0) + 1);
  }
  return grams;
}

/** Dice coefficient of character bigrams: 1 for equal strings, 0 for nothing in common. */
export function similarity(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length < 2 || b.length < 2) return 0;
  const left = bigrams(a);
  const right = bigrams(b);
  let shared = 0;
  for (const [gram, count] of left) shared += Math.min(count, right.get(gram) ?? 0);
  return (2 * shared) / (a.length - 1 + b.length - 1);
}

/**
 * The window of the file most like the needle, so a failed match can show the model what the
 * file really says there. Bounded work: on a huge file lines are compared by equality of their
 * whitespace-free text only.
 */
export function closestWindow(fileLines: readonly string[], needle: readonly string[]): { start: number; end: number; score: number } | undefined {
  const size = Math.max(1, Math.min(needle.length, 60));
  const squash = (line: string) => line.normalize("NFC").replace(/\s+/g, "");
  const probe = needle.slice(0, size).map(squash);
  if (fileLines.length === 0 || probe.every((l) => l === "")) return undefined;
  const budget = 60_000;
  const cheap = fileLines.length * size > budget;
  const file = fileLines.map(squash);
  let best: { start: number; end: number; score: number } | undefined;
  for (let start = 0; start < file.length; start += 1) {
    let score = 0;
    for (let k = 0; k < size && start + k < file.length; k += 1) {
      const a = file[start + k];
      const b = probe[k];
      score += cheap ? (a === b ? 1 : 0) : similarity(a, b);
    }
    if (best === undefined || score > best.score) best = { start, end: Math.min(file.length, start + size), score: score / size };
  }
  return best;
}
