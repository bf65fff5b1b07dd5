import { describe, expect, it } from "vitest";
import { mapEntries } from "../src/index.js";

describe("mapEntries", () => {
  it("gives what Object.fromEntries over the mapped entries gives, in order", () => {
    const value = { b: 1, a: "x", 2: true, nested: { k: null } };
    const map = (key: string, inner: unknown): [string, unknown] => [`${key}!`, typeof inner === "number" ? inner + 1 : inner];
    const expected = Object.fromEntries(Object.entries(value).map(([key, inner]) => map(key, inner)));
    expect(mapEntries(value, map)).toEqual(expected);
    expect(Object.keys(mapEntries(value, map))).toEqual(Object.keys(expected));
  });

  it("keeps a __proto__ key an own key and never sets the prototype", () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as object;
    const out = mapEntries(hostile, (key, inner) => [key, inner]);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(["__proto__", "a"]);
    expect((out as { polluted?: boolean }).polluted).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(out, "__proto__")?.value).toEqual({ polluted: true });
  });
});
