import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { requestJson } from "../../../tests/helpers/service-process.js";
import { startToolsHarness, type ToolsHarness } from "./helpers.js";

const block = (search: string, replace: string) => `<<<<<<< SEARCH\n${search}=======\n${replace}>>>>>>> REPLACE\n`;

async function waitFor(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("edits over the bus: only what they can prove", () => {
  let h: ToolsHarness;
  const file = (p: string) => join(h.workspace, p);
  beforeAll(async () => {
    h = await startToolsHarness();
  });
  afterAll(async () => h?.stop());

  it("a refusal carries its code in metadata.error_code, in the preview's error_code, and in the text the model reads", async () => {
    writeFileSync(file("tabs.go"), "func f() {\n\tx := 1\n}\n");
    const args = { path: "tabs.go", diff: block("    x := 1\n", "    x := 2\n") };
    const preview = await h.preview("replace_in_file", args);
    expect(preview.ok).toBe(true);
    expect(preview.result.error_code).toBe("EDIT_NOT_FOUND");
    expect(preview.result.error).toMatch(/^EDIT_NOT_FOUND: /);
    expect(preview.result.error).toContain("file line 2: ⟦\\t⟧x := 1");
    const done = await h.exec("replace_in_file", args);
    expect(done.result.is_error).toBe(true);
    expect(done.result.metadata.error_code).toBe("EDIT_NOT_FOUND");
    expect(done.result.output).toContain("only if whitespace is ignored");
    const malformed = await h.exec("replace_in_file", { path: "tabs.go", diff: block("\tx := 1\n", "\tx := 2\n").replace(/<<<<<<</, "<<<<<<<<<<") });
    expect(malformed.result.metadata.error_code).toBe("EDIT_MALFORMED");
    const lazy = await h.preview("apply_patch", { diff: "--- a/tabs.go\n+++ b/tabs.go\n@@ -1,3 +1,3 @@\n func f() {\n-\tx := 1\n+\t// ... existing code ...\n }\n" });
    expect(lazy.result.error_code).toBe("EDIT_LAZY_ELISION");
    expect(readFileSync(file("tabs.go"), "utf8")).toBe("func f() {\n\tx := 1\n}\n");
  });

  it("several blocks: one failing block refuses the whole edit and the file is unchanged on disk", async () => {
    writeFileSync(file("multi.txt"), "one\ntwo\nthree\n");
    const done = await h.exec("replace_in_file", { path: "multi.txt", diff: block("one\n", "ONE\n") + block("three\n", "THREE\n") + block("four\n", "FOUR\n") });
    expect(done.result.is_error).toBe(true);
    expect(done.result.metadata.error_code).toBe("EDIT_NOT_FOUND");
    expect(done.result.output).toContain("SEARCH block 3 of 3");
    expect(done.result.changed_paths).toEqual([]);
    const chainThenMiss = await h.exec("replace_in_file", { path: "multi.txt", diff: block("one\n", "uno\n") + block("uno\ntwo\n", "x\n") + block("four\n", "FOUR\n") });
    expect(chainThenMiss.result.metadata.error_code).toBe("EDIT_NOT_FOUND");
    const ambiguous = await h.exec("replace_in_file", { path: "multi.txt", diff: block("one\n", "two\n") + block("two\n", "2\n") });
    expect(ambiguous.result.metadata.error_code).toBe("EDIT_AMBIGUOUS");
    expect(ambiguous.result.output).toContain("text an earlier block wrote");
    expect(readFileSync(file("multi.txt"), "utf8")).toBe("one\ntwo\nthree\n");
  });

  it("several blocks apply in order, a later one against the text the earlier ones wrote", async () => {
    writeFileSync(file("chain.py"), "import os\n\ndef main():\n    pass\n");
    const diff = block("def main():\n    pass\n", "def main():\n    run()\n\ndef run():\n    return 1\n") + block("def run():\n    return 1\n", "def run():\n    return os.getpid()\n");
    const preview = await h.preview("replace_in_file", { path: "chain.py", diff });
    expect(preview.result.error).toBeUndefined();
    const done = await h.exec("replace_in_file", { path: "chain.py", diff }, { expected_digests: preview.result.file_digests });
    expect(done.result.is_error).toBe(false);
    expect(readFileSync(file("chain.py"), "utf8")).toBe("import os\n\ndef main():\n    run()\n\ndef run():\n    return os.getpid()\n");
  });

  it("apply_patch: context lines that lost their leading space apply where they are the file's lines, and nowhere else", async () => {
    writeFileSync(file("slip.go"), "func f() {\n\tx := 1\n\treturn x\n}\n");
    const slipped = "--- a/slip.go\n+++ b/slip.go\n@@ -1,4 +1,4 @@\nfunc f() {\n-\tx := 1\n+\tx := 2\n\treturn x\n}\n";
    const done = await h.exec("apply_patch", { diff: slipped });
    expect(done.result.is_error).toBe(false);
    expect(readFileSync(file("slip.go"), "utf8")).toBe("func f() {\n\tx := 2\n\treturn x\n}\n");
    const notThere = await h.exec("apply_patch", { diff: "--- a/slip.go\n+++ b/slip.go\n@@ -1,4 +1,4 @@\nfunc f() {\n-\tx := 2\n+\tx := 3\n\treturn  x\n}\n" });
    expect(notThere.result.metadata.error_code).toBe("EDIT_MALFORMED");
    expect(notThere.result.output).toContain("without a ' ', '-' or '+' prefix");
    expect(readFileSync(file("slip.go"), "utf8")).toBe("func f() {\n\tx := 2\n\treturn x\n}\n");
  });

  it("apply_patch: a hunk whose @@ start and counts are both wrong applies where its lines match", async () => {
    writeFileSync(file("counts.txt"), "head\nalpha\nbeta\ngamma\n");
    const done = await h.exec("apply_patch", { diff: "--- a/counts.txt\n+++ b/counts.txt\n@@ -40,9 +40,9 @@\n alpha\n-beta\n+BETA\n gamma\n" });
    expect(done.result.is_error).toBe(false);
    expect(done.result.metadata.match_levels).toEqual(["exact"]);
    expect(readFileSync(file("counts.txt"), "utf8")).toBe("head\nalpha\nBETA\ngamma\n");
    const stale = await h.exec("apply_patch", { diff: "--- a/counts.txt\n+++ b/counts.txt\n@@ -40,9 +40,9 @@\n alpha\n-BETA\n+B\n delta\n" });
    expect(stale.result.metadata.error_code).toBe("EDIT_NOT_FOUND");
    expect(readFileSync(file("counts.txt"), "utf8")).toBe("head\nalpha\nBETA\ngamma\n");
  });

  it("apply_patch deletes and renames files, and the approval preview says so", async () => {
    writeFileSync(file("gone.txt"), "bye\n");
    writeFileSync(file("old-name.txt"), "keep\nchange\n");
    const diff =
      "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n" +
      "diff --git a/old-name.txt b/new-name.txt\nrename from old-name.txt\nrename to new-name.txt\n--- a/old-name.txt\n+++ b/new-name.txt\n@@ -1,2 +1,2 @@\n keep\n-change\n+changed\n";
    const preview = await h.preview("apply_patch", { diff });
    expect(preview.result.error).toBeUndefined();
    expect(preview.result.diff).toContain("delete gone.txt\n");
    expect(preview.result.diff).toContain("rename old-name.txt → new-name.txt\n");
    expect(preview.result.diff).toContain("+changed");
    expect(preview.result.paths.sort()).toEqual(["gone.txt", "new-name.txt", "old-name.txt"]);
    expect(existsSync(file("gone.txt"))).toBe(true);
    const done = await h.exec("apply_patch", { diff }, { expected_digests: preview.result.file_digests });
    expect(done.result.is_error).toBe(false);
    expect(done.result.changed_paths.sort()).toEqual(["gone.txt", "new-name.txt", "old-name.txt"]);
    expect(done.result.metadata.operations).toEqual([
      { path: "gone.txt", operation: "delete" },
      { path: "new-name.txt", operation: "rename", from: "old-name.txt" },
    ]);
    expect(existsSync(file("gone.txt"))).toBe(false);
    expect(existsSync(file("old-name.txt"))).toBe(false);
    expect(readFileSync(file("new-name.txt"), "utf8")).toBe("keep\nchanged\n");
    const onto = await h.preview("apply_patch", { diff: "--- a/new-name.txt\n+++ b/multi.txt\n" });
    expect(onto.result.error_code).toBe("EDIT_FILE_EXISTS");
  });

  it("a fenced diff with prose after it applies, hunk by hunk, with match_levels", async () => {
    writeFileSync(file("fenced.py"), "def f():\n    return 1\n\n\ndef g():\n    return 2\n");
    const diff =
      "Here is the fix:\n\n```diff\n--- a/fenced.py\n+++ b/fenced.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 10\n@@ -5,2 +5,2 @@\n def g():\n-    return 2\n+    return 20\n```\n\nBoth functions now return tens.\n- f returns 10\n";
    const done = await h.exec("apply_patch", { diff });
    expect(done.result.is_error).toBe(false);
    expect(done.result.metadata.match_levels).toEqual(["exact", "exact"]);
    expect(readFileSync(file("fenced.py"), "utf8")).toBe("def f():\n    return 10\n\n\ndef g():\n    return 20\n");
    const again = await h.exec("apply_patch", { diff });
    expect(again.result.metadata.error_code).toBe("EDIT_ALREADY_APPLIED");
    expect(again.result.output).toContain("Hunk 1 of 2 for fenced.py");
  });

  it("a Markdown file's fence line given as context is context, not the end of the hunk, in a fenced diff too", async () => {
    writeFileSync(file("README.md"), "# Usage\n\n```\nnpm start\n```\n\nRun it.\n");
    const diff = "--- a/README.md\n+++ b/README.md\n@@ -3,5 +3,5 @@\n ```\n npm start\n ```\n \n-Run it.\n+Run it twice.\n";
    const done = await h.exec("apply_patch", { diff });
    expect(done.result.is_error, done.result.output).toBe(false);
    expect(readFileSync(file("README.md"), "utf8")).toBe("# Usage\n\n```\nnpm start\n```\n\nRun it twice.\n");
    const wrapped = "```diff\n--- a/README.md\n+++ b/README.md\n@@ -3,3 +3,3 @@\n ```\n-npm start\n+npm run start\n ```\n```\nDone.\n";
    const again = await h.exec("apply_patch", { diff: wrapped });
    expect(again.result.is_error, again.result.output).toBe(false);
    expect(readFileSync(file("README.md"), "utf8")).toBe("# Usage\n\n```\nnpm run start\n```\n\nRun it twice.\n");
  });

  it("answers other requests while a 100k-line miss is matched", async () => {
    const lines = Array.from({ length: 100_000 }, (_, i) => `    const value${i} = compute(${i}, "some text here");`);
    writeFileSync(file("huge.ts"), lines.join("\n") + "\n");
    const search = Array.from({ length: 20 }, (_, k) => `    const value${500 + k} = compute(${500 + k}, "some text hare");`).join("\n") + "\n";
    const logsBefore = h.service.logs().length;
    let pending = true;
    const miss = h.preview("replace_in_file", { path: "huge.ts", diff: block(search, "x\n") }).finally(() => {
      pending = false;
    });
    await waitFor(() => h.service.logs().slice(logsBefore).includes("edit matching runs off the event loop"), "the matching to start");
    const ping = await requestJson(h.client, "$SRV.PING.aide-tools", "", 10_000);
    const answeredWhilePending = pending;
    expect(ping.name).toBe("aide-tools");
    expect(answeredWhilePending).toBe(true);
    const reply = await miss;
    expect(reply.result.error_code).toBe("EDIT_NOT_FOUND");
  });
});
