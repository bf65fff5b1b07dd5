import assert from "node:assert/strict";
const { memoize } = await import(`${process.cwd()}/src/memo.js`);
let calls = 0;
const add = memoize((a, b) => { calls++; return a + b; });
assert.equal(add(1, 2), 3);
assert.equal(add(1, 2), 3);
assert.equal(calls, 1);
assert.equal(add(2, 1), 3);
assert.equal(calls, 2);
