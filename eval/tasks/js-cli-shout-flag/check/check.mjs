import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
const run = (...args) => execFileSync("node", ["greet.js", ...args]).toString();
assert.equal(run("Ada"), "Hello, Ada!\n");
assert.equal(run("Ada", "--shout"), "HELLO, ADA!\n");
assert.equal(run("--shout", "Bob"), "HELLO, BOB!\n");
