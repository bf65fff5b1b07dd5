import { greet } from "./greeting.js";
import { getUsr } from "./users.js";
console.log(greet(1));
console.log(getUsr(2).name);
