import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
execFileSync("node", ["test/sum.test.js"], { stdio: "inherit" });
const { sum } = await import(`${process.cwd()}/src/sum.js`);
assert.equal(sum([5]), 5);
assert.equal(sum([-1, 1, 10]), 10);
