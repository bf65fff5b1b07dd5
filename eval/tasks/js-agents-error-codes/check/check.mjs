// Hidden check: a negative quantity is refused the project's way (AGENTS.md): an AppError from
// lib/errors.js with an E_UPPER_SNAKE code; the rest keeps working.
import assert from "node:assert/strict";

const { parseQuantity } = await import(`${process.cwd()}/lib/order.js`);
const { AppError } = await import(`${process.cwd()}/lib/errors.js`);
assert.equal(parseQuantity("3"), 3);
assert.equal(parseQuantity(" 0 "), 0);
assert.throws(() => parseQuantity("x"));
let thrown;
try {
  parseQuantity("-2");
} catch (error) {
  thrown = error;
}
assert.ok(thrown !== undefined, "parseQuantity('-2') throws");
assert.ok(thrown instanceof AppError, `parseQuantity('-2') throws an AppError from lib/errors.js, not ${thrown?.constructor?.name}`);
assert.match(String(thrown.code), /^E_[A-Z0-9]+(_[A-Z0-9]+)*$/, "its code is E_ and UPPER_SNAKE_CASE");
