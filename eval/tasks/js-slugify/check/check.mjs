import assert from "node:assert/strict";
const strings = await import(`${process.cwd()}/src/strings.js`);
assert.equal(typeof strings.slugify, "function", "slugify is exported");
assert.equal(strings.slugify("  Hello, World! 2024 "), "hello-world-2024");
assert.equal(strings.slugify("a--b__c"), "a-b-c");
assert.equal(strings.slugify("---"), "");
assert.equal(strings.capitalize("abc"), "Abc");
