// The demo's task (examples/sample-project, as `npm run demo` runs it): the cart's total counts
// price times quantity, checked on the demo's own cases and on lines it does not show.
import assert from "node:assert/strict";
const { cartTotal } = await import(`${process.cwd()}/src/cart.js`);
assert.equal(cartTotal([]), 0);
assert.equal(cartTotal([{ price: 250, quantity: 2 }, { price: 100, quantity: 3 }]), 800);
assert.equal(cartTotal([{ price: 999, quantity: 1 }, { price: 5, quantity: 7 }, { price: 0, quantity: 4 }]), 1034);
