import { getUsr } from "./users.js";

export function greet(id) {
  const user = getUsr(id);
  return user ? `Hello, ${user.name}!` : "Hello, stranger!";
}
