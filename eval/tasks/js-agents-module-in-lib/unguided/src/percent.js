/** The share part/whole as a whole-number percentage string ('33%'). */
export function percent(part, whole) {
  if (whole === 0) throw new RangeError("percent of a whole of 0");
  return `${Math.round((part / whole) * 100)}%`;
}
