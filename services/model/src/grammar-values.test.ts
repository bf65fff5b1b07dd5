import { describe, expect, it } from "vitest";
import { bodyRuleName, bodyRules, integerRule, textCanHold, valueRule } from "./grammar-values.js";

/** A GBNF alternative/sequence over literals and digit classes, turned into a JS regex to test the language it accepts. */
function toRegExp(rule: string): RegExp {
  const source = rule.replace(/"([^"]*)"/g, (_, text: string) => text.replace(/[-.*+?^${}()|[\]\\]/g, "\\$&")).replace(/\s+/g, "");
  return new RegExp(`^(?:${source})$`);
}

describe("integerRule: an integer grammar with the schema's own bounds", () => {
  const cases: [number | undefined, number | undefined, number[], number[]][] = [
    [1, 2000, [1, 9, 10, 99, 400, 1999, 2000], [0, -1, 2001, 9999, -300000000000000]],
    [0, 30000, [0, 1, 29999, 30000], [-1, 30001, 100000]],
    [1000, 7200000, [1000, 1001, 9999, 10000, 7199999, 7200000], [999, 7200001, 8000000, 0]],
    [64, 16000, [64, 65, 99, 100, 15999, 16000], [63, 16001, 7]],
    [1, 9007199254740991, [1, 42, 123456789012345], [0, -5]],
    [-5, 5, [-5, -1, 0, 1, 5], [-6, 6, -10]],
    [undefined, -3, [-3, -4, -1000], [-2, 0, 3]],
    [7, undefined, [7, 8, 9, 10, 1000000], [6, 0, -7]],
    [12, undefined, [12, 99, 100, 5000], [11, 1, 0]],
  ];
  for (const [min, max, accepted, refused] of cases) {
    it(`[${min}, ${max}] accepts ${accepted.join(", ")} and refuses ${refused.join(", ")}`, () => {
      const pattern = toRegExp(integerRule(min, max));
      for (const value of accepted) expect(pattern.test(String(value)), `${value} in ${integerRule(min, max)}`).toBe(true);
      for (const value of refused) expect(pattern.test(String(value)), `${value} in ${integerRule(min, max)}`).toBe(false);
      expect(pattern.test("007")).toBe(false);
    });
  }

  it("every integer from 0 to 2,500 is accepted exactly when it is within [37, 2048]", () => {
    const pattern = toRegExp(integerRule(37, 2048));
    for (let value = 0; value <= 2500; value++) expect(pattern.test(String(value)), String(value)).toBe(value >= 37 && value <= 2048);
  });
});

describe("valueRule levels", () => {
  it("typed keeps the loose integer (the -300000000000000 bug); strict keeps the bounds, no sign for non-negative numbers, non-empty long strings", () => {
    const entries = { type: "integer", minimum: 1, maximum: 2000 };
    expect(toRegExp(valueRule(entries, "typed")).test("-300000000000000")).toBe(true);
    expect(toRegExp(valueRule(entries, "strict")).test("-300000000000000")).toBe(false);
    expect(valueRule({ type: "number", minimum: 0 }, "strict")).not.toContain('"-"');
    // One line of at most 255 characters (closes within the token budget), at most the maxLength.
    expect(valueRule({ type: "string", minLength: 1, maxLength: 4096 }, "strict")).toBe('"\\n"? visible [^<\\n]{0,254} "\\n"?');
    expect(valueRule({ type: "string", minLength: 1, maxLength: 32 }, "strict")).toBe('"\\n"? visible [^<\\n]{0,31} "\\n"?');
    expect(valueRule({ type: "string", maxLength: 500 }, "strict")).toBe('"\\n"? [^<\\n]{0,255} "\\n"?');
    // A bounded number keeps its bounds (as whole numbers); a body is anything but its own closing tag.
    expect(toRegExp(valueRule({ type: "number", minimum: 1, maximum: 10 }, "strict")).test("11")).toBe(false);
    expect(valueRule({ type: "string", maxLength: 4194304 }, "strict")).toBe("text");
    expect(valueRule({ type: "string", maxLength: 4194304 }, "strict", "content")).toBe("body-content");
    expect(valueRule({ type: "string", minLength: 1, maxLength: 4194304 }, "strict", "diff")).toBe("body-diff-1");
    expect(valueRule({ type: "string" }, "strict")).toBe("plain");
    expect(valueRule({ type: "string", minLength: 1, maxLength: 4096 }, "typed")).toBe("text");
    expect(valueRule({ enum: ["a", "b"] }, "strict")).toBe('("a" | "b")');
  });
});

describe("bodyRules: a body that cannot hold its own closing tag", () => {
  it("parameters whose rule names would fold alike get distinct body rules", () => {
    expect(bodyRuleName("content")).toBe("body-content");
    expect(new Set(["a_b", "a-b", "A_b"].map(bodyRuleName)).size).toBe(3);
    // A '-' inside a character class is spelled as an escape.
    expect(bodyRules("a-b").join("\n")).toContain("[^<\\x2D]");
  });
});

describe("textCanHold", () => {
  it("an array or object parameter cannot come out of the text protocol valid; strings, numbers, untyped ones can", () => {
    expect(textCanHold({ type: "array" })).toBe(false);
    expect(textCanHold({ type: "object" })).toBe(false);
    expect(textCanHold({ type: ["array", "string"] })).toBe(true);
    expect(textCanHold({ type: "integer" })).toBe(true);
    expect(textCanHold({})).toBe(true);
  });
});
