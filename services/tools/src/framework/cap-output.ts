/** Keeps the head and the tail of a long text with exactly one marker between them. */
export function capText(text: string, maxChars: number): { text: string; truncated: boolean } {
  if (text.length <= maxChars) return { text, truncated: false };
  const totalLines = text.split("\n").length;
  const keep = Math.floor(maxChars / 2);
  const head = text.slice(0, keep);
  const tail = text.slice(text.length - keep);
  const omitted = text.length - head.length - tail.length;
  return { text: `${head}\n[... ${omitted} characters omitted; the full output had ${totalLines} lines ...]\n${tail}`, truncated: true };
}
