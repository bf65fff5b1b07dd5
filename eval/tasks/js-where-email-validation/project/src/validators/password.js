export function isStrongPassword(password) {
  return password.length >= 12 && /\d/.test(password);
}
