const commentStart = String.raw`(?:\/\/+|#+|\/\*+|\*|<!--|--|;+|%|\{\/\*)`;
const lazyWords = String.raw`(?:existing|rest|remaining|unchanged|previous|other|same|original|omitted|more|keep|leave)`;
const patterns = [
  new RegExp(String.raw`^${commentStart}\s*(?:\.\.\.|…)\s*(?:${lazyWords}\b.*)?(?:\*\/|-->|\*\/\})?\s*$`, "i"),
  new RegExp(String.raw`^${commentStart}\s*(?:\.\.\.|…)?\s*${lazyWords}\b.*\b(?:code|lines?|implementation|content|methods?|functions?|file|logic|here|unchanged|same)\b.*$`, "i"),
];

/**
 * Lines like `// ... existing code ...` in REPLACE that do not appear in SEARCH: applying them
 * would delete the code they stand for, so the edit is refused.
 */
export function findLazyComment(replace: string, search: string): string | undefined {
  const searchLines = new Set(search.split("\n").map((l) => l.trim()));
  for (const line of replace.split("\n")) {
    const trimmed = line.trim();
    if (trimmed === "" || searchLines.has(trimmed)) continue;
    if (patterns.some((pattern) => pattern.test(trimmed))) return trimmed;
  }
  return undefined;
}
