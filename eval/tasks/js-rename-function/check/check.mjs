import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
const users = await import(`${process.cwd()}/src/users.js`);
assert.equal(typeof users.getUser, "function", "getUser is exported");
assert.equal(users.getUsr, undefined, "getUsr is gone");
for (const file of readdirSync("src")) assert.ok(!readFileSync(`src/${file}`, "utf8").includes("getUsr"), `${file} still says getUsr`);
assert.equal(execFileSync("node", ["src/main.js"]).toString(), "Hello, Ada!\nLinus\n");
