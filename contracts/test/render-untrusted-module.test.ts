import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

// The web panel serves contracts/dist/render-untrusted.js to the browser as it is
// (services/gateway/src/panel-routes.ts): an import in it would leave the panel without its
// rendering, and every page would fail to load its scripts.
describe("render-untrusted.js, the module the panel loads as it is", () => {
  it("has no import or export-from statement", () => {
    const built = readFileSync(join(import.meta.dirname, "..", "dist", "render-untrusted.js"), "utf8");
    expect(built).not.toMatch(/^\s*import\s/m);
    expect(built).not.toMatch(/^\s*export\s+(\*|\{[^}]*\})\s+from\s/m);
  });
});
