import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readInstructionFiles } from "./read-instruction-files.js";

const root = mkdtempSync(join(tmpdir(), "aide-instr-read-"));
const workspace = join(root, "ws");
const outside = join(root, "outside");
mkdirSync(join(workspace, "a", "b"), { recursive: true });
mkdirSync(join(workspace, "c", ".github"), { recursive: true });
mkdirSync(join(workspace, "linked"), { recursive: true });
mkdirSync(join(workspace, "big"), { recursive: true });
mkdirSync(outside, { recursive: true });
writeFileSync(join(workspace, "AGENTS.md"), "root rules\n");
writeFileSync(join(workspace, "CLAUDE.md"), "not read: AGENTS.md comes first\n");
writeFileSync(join(workspace, "a", "CLAUDE.md"), "a rules\n");
writeFileSync(join(workspace, "c", ".github", "copilot-instructions.md"), "c rules\n");
writeFileSync(join(workspace, "c", ".cursorrules"), "not read: copilot comes first\n");
writeFileSync(join(outside, "secret.md"), "outside the workspace\n");
symlinkSync(join(outside, "secret.md"), join(workspace, "linked", "AGENTS.md"));
writeFileSync(join(workspace, "linked", "CONVENTIONS.md"), "linked rules\n");
writeFileSync(join(workspace, "big", "AGENTS.md"), "x".repeat(2000));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("agent.tools.instructions reads through the jail", () => {
  it("takes each folder's first file in the documented order, skips a link out of the workspace, and digests the bytes", async () => {
    const { files } = await readInstructionFiles({ session: "s1", workspace, folders: ["", "a", "a/b", "c", "linked", "../outside"] }, []);
    expect(files.map((file) => [file.folder, file.path, file.text])).toEqual([
      ["", "AGENTS.md", "root rules\n"],
      ["a", "a/CLAUDE.md", "a rules\n"],
      ["c", "c/.github/copilot-instructions.md", "c rules\n"],
      ["linked", "linked/CONVENTIONS.md", "linked rules\n"],
    ]);
    expect(files[0].digest).toBe(createHash("sha256").update("root rules\n").digest("hex"));
    expect(files[0].bytes).toBe(11);
  });
  it("a file past max_bytes is reported with its size and digest, without its text", async () => {
    const { files } = await readInstructionFiles({ session: "s1", workspace, folders: ["big"], max_bytes: 1000 }, []);
    expect(files).toEqual([{ folder: "big", path: "big/AGENTS.md", bytes: 2000, digest: createHash("sha256").update("x".repeat(2000)).digest("hex") }]);
  });
});
