// Hidden check: dropped rows are still dropped, and each is logged the project's way (AGENTS.md):
// through src/log.js (one `level=… event=…` line on stderr), level warn, an `import.…` event, the line number in a field.
import assert from "node:assert/strict";

const console_ = [];
for (const method of ["log", "info", "warn", "error", "debug"]) console[method] = (...args) => console_.push(`${method}: ${args.join(" ")}`);
const written = [];
const write = process.stderr.write.bind(process.stderr);
process.stderr.write = (chunk, ...rest) => (written.push(String(chunk)), true);
let rows;
try {
  const { importRows } = await import(`${process.cwd()}/src/import.js`);
  rows = importRows("name,email\nAda,ada@example.com\nBob,\nCy,cy@example.com\nDee\n");
} finally {
  process.stderr.write = write;
}
assert.deepEqual(rows, [{ name: "Ada", email: "ada@example.com" }, { name: "Cy", email: "cy@example.com" }]);
assert.deepEqual(console_, [], `the console is used directly: ${console_.join(" | ")}`);
const lines = written.join("").split("\n").filter(Boolean);
const pattern = (line) => new RegExp(`^level=warn event=import\\.[a-z][a-z0-9_]* (.* )?[a-z_]*line[a-z_]*=${line}( |$)`);
for (const line of [3, 5]) assert.ok(lines.some((text) => pattern(line).test(text)), `no warn line for line ${line} as log() writes it; stderr had: ${lines.join(" | ")}`);
assert.equal(lines.length, 2, `one line per dropped row: ${lines.join(" | ")}`);
