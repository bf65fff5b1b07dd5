import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { panelDir } from "./gateway-harness.js";

/**
 * The panel builds its DOM with `textContent` only: no source may parse a string as HTML, and
 * every text from the bus goes through the shared rendering (`shown`) before it is set.
 */
const sources = readdirSync(join(panelDir, "src"))
  .filter((name) => name.endsWith(".ts") && !name.endsWith(".d.ts"))
  .map((name) => ({ name, text: readFileSync(join(panelDir, "src", name), "utf8") }));

describe("the panel's DOM is built from text only", () => {
  it.each(sources.map((source) => [source.name, source.text] as const))("%s parses no string as HTML", (_name, text) => {
    expect(text).not.toMatch(/\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write|DOMParser|createContextualFragment|srcdoc/);
  });
  it("the rendering it uses is the contracts' module, not a copy", () => {
    const declaration = readFileSync(join(panelDir, "src", "render-untrusted.d.ts"), "utf8");
    expect(declaration).toContain("contracts/dist/render-untrusted.js");
    expect(sources.map((source) => source.name)).not.toContain("render-untrusted.ts");
  });
});
