/** Sums the line totals of a cart: price × quantity, in cents. */
export function cartTotal(items) {
  let total = 0;
  for (const item of items) {
    total += item.price * item.quantity;
  }
  return total;
}
