/** Rows of [label, value] as aligned text lines. */
export function table(rows) {
  const width = Math.max(0, ...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${label.padEnd(width)}  ${value}\n`).join("");
}
