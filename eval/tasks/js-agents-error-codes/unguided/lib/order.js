/** A quantity typed by a person: a whole number, not negative. */
export function parseQuantity(text) {
  const value = Number(String(text).trim());
  if (!Number.isInteger(value)) throw new Error(`not a whole number: ${text}`);
  if (value < 0) throw new RangeError(`a quantity cannot be negative: ${text}`);
  return value;
}
