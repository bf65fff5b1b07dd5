import assert from "node:assert/strict";
const { loadAll } = await import(`${process.cwd()}/src/load.js`);
const items = await loadAll([1, 2, 3, 4]);
assert.deepEqual(items, [1, 2, 3, 4].map((id) => ({ id, name: `item-${id}` })));
