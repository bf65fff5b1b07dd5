/**
 * A new plain object with `map` applied to each own enumerable string-keyed entry of `value`, in
 * order: what `Object.fromEntries(Object.entries(value).map(...))` gives (a `__proto__` key stays an
 * own key and never sets the prototype), without building the entry arrays; in Node 20 that
 * composition costs several microseconds for a handful of keys, and events walk every object.
 */
export function mapEntries(value: object, map: (key: string, inner: unknown) => [string, unknown]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const [newKey, newValue] = map(key, (value as Record<string, unknown>)[key]);
    if (newKey === "__proto__") Object.defineProperty(out, newKey, { value: newValue, enumerable: true, writable: true, configurable: true });
    else out[newKey] = newValue;
  }
  return out;
}
