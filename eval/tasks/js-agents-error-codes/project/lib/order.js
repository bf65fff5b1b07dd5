/** A quantity typed by a person: a whole number. */
export function parseQuantity(text) {
  const value = Number(String(text).trim());
  if (!Number.isInteger(value)) throw new Error(`not a whole number: ${text}`);
  return value;
}
