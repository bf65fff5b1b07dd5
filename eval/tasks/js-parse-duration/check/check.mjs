import assert from "node:assert/strict";
const { parseDuration } = await import(`${process.cwd()}/src/duration.js`);
assert.equal(parseDuration("1h30m"), 5400);
assert.equal(parseDuration("45s"), 45);
assert.equal(parseDuration("2h5m10s"), 7510);
assert.equal(parseDuration("10m"), 600);
