/**
 * Numbers a completion presents as measurements: decimals and integers of two or more digits
 * (single digits are mostly counts and list markers). Thousands separators are folded (`1,234`).
 */
export function measurementNumbers(text: string): string[] {
  const withoutListMarkers = text.replace(/^\s*\d+[.)]\s/gm, " ");
  const found = withoutListMarkers.match(/(?<![\w.])-?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w])|(?<![\w.])-?\d+(?:\.\d+)?/g) ?? [];
  const numbers = found.map((number) => number.replace(/,/g, "")).filter((number) => /\./.test(number) || number.replace(/^-/, "").length >= 2);
  return [...new Set(numbers)];
}

/** True when `number` occurs in `output` as a whole number (not as part of a longer one). */
export function outputContainsNumber(output: string, number: string): boolean {
  const folded = output.replace(/(\d),(?=\d{3}\b)/g, "$1");
  const escaped = number.replace(/[.-]/g, (char) => `\\${char}`);
  return new RegExp(`(?<![\\d.])${escaped}(?![\\d]|\\.\\d)`).test(folded);
}
