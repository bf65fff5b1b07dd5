import { isValidEmail } from "../validators/email.js";
import { isStrongPassword } from "../validators/password.js";

export function validateSignup(form) {
  const errors = [];
  if (!isValidEmail(form.email)) errors.push("email");
  if (!isStrongPassword(form.password)) errors.push("password");
  return errors;
}
