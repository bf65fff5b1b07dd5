import { test } from "node:test";
import assert from "node:assert/strict";
import { cartTotal } from "../src/cart.js";

test("an empty cart costs nothing", () => {
  assert.equal(cartTotal([]), 0);
});

test("each line counts price times quantity", () => {
  assert.equal(cartTotal([{ price: 250, quantity: 2 }, { price: 100, quantity: 3 }]), 800);
});
