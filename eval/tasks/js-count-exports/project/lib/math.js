function square(x) {
  return x * x;
}

export function add(a, b) {
  return a + b;
}

export function hypotenuse(a, b) {
  return Math.sqrt(square(a) + square(b));
}

export const mean = (values) => values.reduce((s, v) => s + v, 0) / values.length;

export function round2(x) {
  return Math.round(x * 100) / 100;
}
