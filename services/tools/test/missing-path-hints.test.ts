import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startToolsHarness, type ToolsHarness } from "./helpers.js";

/**
 * A model that names a path that does not exist (guessed from convention, or copied from an
 * example) is told where the file really is and what the nearest existing folder holds.
 */
describe("a refusal for a missing path names what does exist", () => {
  let h: ToolsHarness;
  beforeAll(async () => {
    h = await startToolsHarness();
    writeFileSync(join(h.workspace, "calendar_utils.py"), "def days():\n    return 7\n");
    mkdirSync(join(h.workspace, "src"));
    writeFileSync(join(h.workspace, "src", "cart.js"), "export const total = 0;\n");
    writeFileSync(join(h.workspace, "src", "index.js"), "import './cart.js';\n");
  });
  afterAll(async () => h?.stop());

  it("read_file: the same name elsewhere, and the root's entries", async () => {
    const reply = await h.exec("read_file", { path: "src/calendar_utils.py" });
    expect(reply.result.is_error).toBe(true);
    expect(reply.result.metadata.error_code).toBe("FILE_NOT_FOUND");
    expect(reply.result.output).toContain("No file at src/calendar_utils.py.");
    expect(reply.result.output).toContain("Named calendar_utils.py in the workspace: calendar_utils.py.");
    expect(reply.result.output).toContain("src/ has: cart.js, index.js.");
  });

  it("read_file: a path in a missing folder shows the root", async () => {
    const reply = await h.exec("read_file", { path: "lib/sum.js" });
    expect(reply.result.output).toContain("The workspace root has: calendar_utils.py, src/.");
    expect(reply.result.output).not.toContain("Named");
  });

  it("replace_in_file and list_dir say the same", async () => {
    const edit = await h.exec("replace_in_file", { path: "cart.js", search: "total = 0", replace: "total = 1" });
    expect(edit.result.is_error).toBe(true);
    expect(edit.result.output).toContain("FILE_NOT_FOUND");
    expect(edit.result.output).toContain("Named cart.js in the workspace: src/cart.js.");
    const listing = await h.exec("list_dir", { path: "source" });
    expect(listing.result.output).toContain("No directory at source. The workspace root has: calendar_utils.py, src/.");
  });
});
