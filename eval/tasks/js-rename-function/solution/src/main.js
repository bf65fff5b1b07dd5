import { greet } from "./greeting.js";
import { getUser } from "./users.js";
console.log(greet(1));
console.log(getUser(2).name);
