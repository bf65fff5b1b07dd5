// Compiles the project's TypeScript with the typescript package (NODE_PATH is aide's own
// node_modules when the runner starts the check), then runs the assertions.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
const require = createRequire(join(process.cwd(), "noop.js"));
let ts;
for (const base of [process.cwd(), ...(process.env.NODE_PATH ?? "").split(":").filter(Boolean)]) {
  try { ts = require(require.resolve("typescript", { paths: [base] })); break; } catch {}
}
if (!ts) { console.error("typescript not found (set NODE_PATH)"); process.exit(2); }
const out = join(process.cwd(), ".eval-check", "out");
mkdirSync(out, { recursive: true });
for (const file of readdirSync("src").filter((f) => f.endsWith(".ts"))) {
  const source = readFileSync(join("src", file), "utf8");
  const result = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 }, reportDiagnostics: true });
  const errors = ts.transpileModule(source, { compilerOptions: {}, reportDiagnostics: true }).diagnostics ?? [];
  if (errors.length > 0) { console.error(`${file}: syntax errors`); process.exit(1); }
  writeFileSync(join(out, file.replace(/\.ts$/, ".js")), result.outputText.replace(/from "(\.\/[^"]+)\.js"/g, 'from "$1.js"'));
}
writeFileSync(join(out, "package.json"), '{ "type": "module" }');
const { createNote } = await import(join(out, "notes.js"));
assert.deepEqual(createNote(" a ", "b").tags, []);
assert.deepEqual(createNote("a", "b", ["X", "y", "x"]).tags, ["x", "y"]);
assert.equal(createNote(" a ", "b").title, "a");
