// Hidden check: percent() works, and it lives in lib/ as the project's AGENTS.md says (src/ must not grow).
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";

const srcFiles = readdirSync("src").sort();
assert.deepEqual(srcFiles, ["cli.js", "table.js"], `src/ must not grow; it holds ${srcFiles.join(", ")}`);
assert.ok(existsSync("lib/percent.js"), "lib/percent.js exists");
const { percent } = await import(`${process.cwd()}/lib/percent.js`);
assert.equal(typeof percent, "function", "percent is a named export of lib/percent.js");
assert.equal(percent(1, 3), "33%");
assert.equal(percent(2, 3), "67%");
assert.equal(percent(5, 5), "100%");
assert.throws(() => percent(1, 0), RangeError);
const { table } = await import(`${process.cwd()}/src/table.js`);
assert.equal(table([["a", "1"]]), "a  1\n");
