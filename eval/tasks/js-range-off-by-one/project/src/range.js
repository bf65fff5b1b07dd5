/** The integers from 0 up to, not including, n. */
export function range(n) {
  const out = [];
  for (let i = 0; i <= n; i++) out.push(i);
  return out;
}
