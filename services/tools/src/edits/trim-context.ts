/**
 * SEARCH/REPLACE variants with some unchanged context lines dropped (lines both sides share at
 * the start or the end), fewest dropped first: when the model misremembers a context line, the
 * changed lines can still be located. Every variant keeps at least one SEARCH line.
 */
export function contextTrimmedVariants(search: string, replace: string): Array<{ search: string; replace: string; dropped: number }> {
  const searchLines = search.replace(/\n$/, "").split("\n");
  const replaceLines = replace === "" ? [] : replace.replace(/\n$/, "").split("\n");
  let prefix = 0;
  while (prefix < searchLines.length && prefix < replaceLines.length && searchLines[prefix] === replaceLines[prefix]) prefix += 1;
  let suffix = 0;
  while (
    suffix < searchLines.length - prefix &&
    suffix < replaceLines.length - prefix &&
    searchLines[searchLines.length - 1 - suffix] === replaceLines[replaceLines.length - 1 - suffix]
  ) suffix += 1;
  const variants: Array<{ search: string; replace: string; dropped: number }> = [];
  const join = (lines: string[]) => (lines.length > 0 ? lines.join("\n") + "\n" : "");
  for (let dropped = 1; dropped <= prefix + suffix; dropped += 1) {
    for (let head = Math.min(dropped, prefix); head >= 0; head -= 1) {
      const tail = dropped - head;
      if (tail > suffix) continue;
      const keptSearch = searchLines.slice(head, searchLines.length - tail);
      if (keptSearch.length === 0 || keptSearch.every((line) => line.trim() === "")) continue;
      variants.push({ search: join(keptSearch), replace: join(replaceLines.slice(head, replaceLines.length - tail)), dropped });
    }
  }
  return variants;
}
