/** A line's character bigrams as sorted codes, so two lines compare by one merge. */
function bigrams(text: string): Uint32Array {
  const codes = new Uint32Array(Math.max(0, text.length - 1));
  for (let i = 0; i < text.length - 1; i += 1) codes[i] = ((text.charCodeAt(i) << 16) | text.charCodeAt(i + 1)) >>> 0;
  return codes.sort();
}

function dice(left: Uint32Array, right: Uint32Array): number {
  if (left.length === 0 || right.length === 0) return 0;
  let shared = 0;
  for (let i = 0, j = 0; i < left.length && j < right.length; ) {
    if (left[i] === right[j]) {
      shared += 1;
      i += 1;
      j += 1;
    } else if (left[i] < right[j]) i += 1;
    else j += 1;
  }
  return (2 * shared) / (left.length + right.length);
}

/** Dice coefficient of character bigrams: 1 for equal strings, 0 for nothing in common. */
export function similarity(a: string, b: string): number {
  if (a === b) return 1;
  return dice(bigrams(a), bigrams(b));
}

/** A line with whitespace removed and Unicode composed: what the closest-lines search compares. */
export function foldLine(line: string): string {
  // eslint-disable-next-line no-control-regex
  return (/[^\x00-\x7f]/.test(line) ? line.normalize("NFC") : line).replace(/\s+/g, "");
}

/**
 * The window of the file most like the needle (both already folded by `foldLine`), so a failed
 * match can show the model what the file really says there. Bounded work: a small file is scored
 * by bigram similarity line by line; a large one by votes of equal lines (linear time).
 */
export function closestWindow(foldedFile: readonly string[], foldedNeedle: readonly string[]): { start: number; end: number; score: number } | undefined {
  const size = Math.max(1, Math.min(foldedNeedle.length, 60));
  const probe = foldedNeedle.slice(0, size);
  if (foldedFile.length === 0 || probe.every((l) => l === "")) return undefined;
  const window = (start: number, score: number) => ({ start, end: Math.min(foldedFile.length, start + size), score });
  if (foldedFile.length * size > 60_000) {
    const positions = new Map<string, number[]>();
    probe.forEach((line, k) => {
      if (line !== "") positions.set(line, [...(positions.get(line) ?? []), k]);
    });
    const votes = new Map<number, number>();
    foldedFile.forEach((line, i) => {
      for (const k of positions.get(line) ?? []) if (i - k >= 0) votes.set(i - k, (votes.get(i - k) ?? 0) + 1);
    });
    let best: { start: number; end: number; score: number } | undefined;
    for (const [start, count] of votes) if (best === undefined || count > best.score * size || (count === best.score * size && start < best.start)) best = window(start, count / size);
    return best;
  }
  const fileGrams = foldedFile.map(bigrams);
  const probeGrams = probe.map(bigrams);
  let best: { start: number; end: number; score: number } | undefined;
  for (let start = 0; start < foldedFile.length; start += 1) {
    let score = 0;
    for (let k = 0; k < size && start + k < foldedFile.length; k += 1) {
      const a = foldedFile[start + k];
      const b = probe[k];
      score += a === b ? 1 : dice(fileGrams[start + k], probeGrams[k]);
    }
    if (best === undefined || score > best.score * size) best = window(start, score / size);
  }
  return best;
}
