const units = { h: 3600, m: 60, s: 1 };

/** Seconds in a duration like "1h30m", "45s" or "2h5m10s". */
export function parseDuration(text) {
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+)([hms])/g)) total += Number(amount) * units[unit];
  return total;
}
