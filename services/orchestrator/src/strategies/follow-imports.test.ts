import { describe, expect, it } from "vitest";
import { importedFiles } from "./follow-imports.js";

describe("follow_imports: the workspace files a file imports", () => {
  it("JavaScript and TypeScript: relative import, export from, require and dynamic import, resolved with the usual extensions and index files; packages and missing files are not followed", () => {
    const files = new Set(["src/cart.js", "src/util/index.ts", "src/money.ts", "test/cart.test.js", "lib/old.cjs"]);
    const text = [
      'import assert from "node:assert/strict";',
      'import { total } from "../src/cart.js";',
      "export { format } from '../src/util';",
      'const old = require("../lib/old.cjs");',
      'const money = await import("../src/money.js");',
      'import { nothing } from "../src/absent.js";',
      'import lodash from "lodash";',
    ].join("\n");
    expect(importedFiles("test/cart.test.js", text, files)).toEqual(["src/cart.js", "src/util/index.ts", "lib/old.cjs", "src/money.ts"]);
  });

  it("Python: from-imports and imports of modules beside the file, at the root or under src/, packages and relative imports", () => {
    const files = new Set(["pricing.py", "tests/test_pricing.py", "src/shop/__init__.py", "src/shop/cart.py", "tests/helpers.py"]);
    const text = ["import os", "from pricing import discount", "from shop import cart", "from .helpers import build", "import json, pricing"].join("\n");
    expect(importedFiles("tests/test_pricing.py", text, files)).toEqual(["pricing.py", "src/shop/__init__.py", "src/shop/cart.py", "tests/helpers.py"]);
  });

  it('shell: source and . beside the script, through the usual $(dirname "$0") prefixes', () => {
    const files = new Set(["trim.sh", "test/trim-test.sh", "test/lib.sh"]);
    const text = ['. "$(dirname "$0")/../trim.sh"', "source lib.sh", 'echo "not . a source"'].join("\n");
    expect(importedFiles("test/trim-test.sh", text, files)).toEqual(["trim.sh", "test/lib.sh"]);
  });

  it("Go: a test's package files; Rust: mod and use crate::, and an integration test's crate root; Java: the classes it names", () => {
    const go = new Set(["clamp.go", "clamp_test.go", "other/x.go", "helper_test.go"]);
    expect(importedFiles("clamp_test.go", "package clamp", go)).toEqual(["clamp.go"]);
    expect(importedFiles("clamp.go", "package clamp", go)).toEqual([]);
    const rust = new Set(["src/lib.rs", "src/temp.rs", "src/units/mod.rs", "tests/temperature.rs"]);
    expect(importedFiles("src/lib.rs", "mod temp;\npub mod units;\nuse std::fmt;", rust)).toEqual(["src/temp.rs", "src/units/mod.rs"]);
    expect(importedFiles("tests/temperature.rs", "use temperature::to_fahrenheit;", rust)).toEqual(["src/lib.rs"]);
    const java = new Set(["src/Roman.java", "src/RomanTest.java", "src/Unused.java"]);
    expect(importedFiles("src/RomanTest.java", "public class RomanTest { String s = Roman.toRoman(4); }", java)).toEqual(["src/Roman.java"]);
  });
});
