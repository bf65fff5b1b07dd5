import assert from "node:assert/strict";
const { range } = await import(`${process.cwd()}/src/range.js`);
assert.deepEqual(range(3), [0, 1, 2]);
assert.deepEqual(range(0), []);
assert.deepEqual(range(1), [0]);
