export function isValidEmail(address) {
  return /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(address);
}
