import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { startToolsHarness, type ToolsHarness } from "./helpers.js";
import { listTree, prepareSwap, secretText, startSwapRacer } from "../../../bench/lib/swap-racer.js";

/**
 * Issue 11, item 1, bounded: while a racer swaps `swap` between a directory and a symlink to a
 * directory outside the workspace (another workspace root, so the service can see it even in its
 * sandbox), reads, listings and writes through the real service return nothing from outside and
 * create nothing there. A fixed number of calls, never a duration.
 */
const rounds = 120;
// Up to four calls per worker: 12 in flight, under the service's 16 (BUSY past it).
const inFlight = 3;

async function race(h: ToolsHarness) {
  const outside = join(h.scratch, "other-root");
  prepareSwap(h.workspace, outside);
  const before = listTree(outside);
  const racer = await startSwapRacer(h.workspace);
  const outputs: string[] = [];
  const outcomes = { readInside: 0, written: 0, refused: 0, searched: 0 };
  const errorReplies: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < rounds) {
      const index = next++;
      const [read, list, write, search] = await Promise.all([
        h.exec("read_file", { path: "swap/file.txt" }),
        h.exec("list_dir", { path: "swap" }),
        h.exec("write_file", { path: `swap/w-${index % 20}.txt`, content: `written ${index}\n` }),
        // ripgrep walks by name: a match count is an oracle on the outside file's content.
        index % 4 === 0 ? h.exec("search_files", { pattern: `${secretText.slice(0, -1)}[${secretText.slice(-1)}]` }) : Promise.resolve(undefined),
      ]);
      if (search?.ok && !search.result.is_error && search.result.metadata.engine === "ripgrep") outcomes.searched += 1;
      if (search !== undefined && search.ok) {
        const matches = search.result.metadata.matches ?? 0;
        outputs.push(matches > 0 ? `search_files counted ${matches} match(es) of ${secretText}: ${search.result.output}` : search.result.output);
      }
      for (const reply of [read, list, write]) {
        if (!reply.ok) {
          errorReplies.push(JSON.stringify(reply.error));
          continue;
        }
        outputs.push(reply.result.output);
        if (reply.result.is_error) outcomes.refused += 1;
      }
      if (read.ok && !read.result.is_error && read.result.output.includes("inside")) outcomes.readInside += 1;
      if (write.ok && !write.result.is_error) outcomes.written += 1;
    }
  };
  try {
    await Promise.all(Array.from({ length: inFlight }, worker));
  } finally {
    const swaps = await racer.stop();
    expect(swaps).toBeGreaterThan(0);
  }
  return { outputs, outcomes, errorReplies, before, after: listTree(outside) };
}

describe.each([
  { mode: "unsandboxed (as with --unsandboxed-services)", sandboxed: false },
  { mode: "sandboxed (the aide up profile)", sandboxed: true },
])("the jail under a directory/symlink swap race, $mode", ({ sandboxed }) => {
  let h: ToolsHarness;
  beforeAll(async () => {
    h = await startToolsHarness({ sandboxed, workspaceRootIsScratch: true });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it("returns no byte from outside and creates no file outside", async () => {
    const { outputs, outcomes, errorReplies, before, after } = await race(h);
    const leaked = outputs.filter((output) => output.includes(secretText));
    expect(leaked, `${leaked.length} of ${outputs.length} outputs leaked:\n${leaked.slice(0, 3).join("\n---\n")}`).toEqual([]);
    expect(after).toEqual(before);
    // A lost race is an ordinary refusal, never a failed request.
    expect(errorReplies.slice(0, 3).join("\n")).toEqual("");
    // The race was real: some calls went through inside while the racer ran.
    expect(outcomes.readInside + outcomes.written).toBeGreaterThan(0);
    // ripgrep ran (in its mount jail) rather than failing quietly.
    expect(outcomes.searched).toBeGreaterThan(0);
  });
});
