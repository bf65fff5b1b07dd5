import { describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { runEditOffThread } from "./run-edit-off-thread.js";
import type { EditJob } from "./edit-job.js";

// The worker runs compiled code: `npx tsc -b` first (as for the service tests).
const workerUrl = new URL("../../dist/edits/edit-worker.js", import.meta.url);

function bigMiss(): EditJob {
  const lines = Array.from({ length: 20_000 }, (_, i) => `const value${i} = compute(${i});`);
  return { kind: "search_replace", before: Buffer.from(lines.join("\n") + "\n"), blocks: [{ search: "const value7 = compute(8);\n", replace: "x\n" }], path: "big.ts", options: {} };
}

describe("runEditOffThread", () => {
  it("has a compiled worker to run", () => {
    expect(existsSync(fileURLToPath(workerUrl))).toBe(true);
  });
  it("gives a large job to a worker thread and returns the same outcome as inline", async () => {
    const job = bigMiss();
    let offThread = 0;
    const outcome = await runEditOffThread(job, { signal: new AbortController().signal, workerUrl, onOffThread: () => (offThread += 1) });
    const inline = await runEditOffThread(job, { signal: new AbortController().signal, inlineBelowBytes: Number.MAX_SAFE_INTEGER });
    expect(offThread).toBe(1);
    expect(outcome).toEqual(inline);
    expect(outcome).toMatchObject({ ok: false, code: "EDIT_NOT_FOUND" });
    const applied = await runEditOffThread({ ...job, blocks: [{ search: "const value7 = compute(7);\n", replace: "x\n" }] } as EditJob, { signal: new AbortController().signal, workerUrl });
    expect(applied.ok && Buffer.isBuffer(applied.after) && applied.after.toString("utf8").split("\n")[7]).toBe("x");
  });
  it("stops the worker on abort and on timeout, with TIMEOUT", async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await runEditOffThread(bigMiss(), { signal: controller.signal, workerUrl })).toMatchObject({ ok: false, code: "TIMEOUT" });
    expect(await runEditOffThread(bigMiss(), { signal: new AbortController().signal, workerUrl, timeoutMs: 1 })).toMatchObject({ ok: false, code: "TIMEOUT" });
  });
});
