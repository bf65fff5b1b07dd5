import { execFileSync } from "node:child_process";
import { existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NatsConnection } from "nats";
import { startTestBus, type TestBus } from "../../../tests/helpers/bus.js";
import { startServiceProcess, type ServiceProcess } from "../../../tests/helpers/service-process.js";
import { call, callError, hashGitDirectories, mutateNastyTree, snapshotTree, writeNastyTree } from "./helpers.js";

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] }).toString();

/** Paths whose file, link or mode differs between two snapshots (folders themselves ignored). */
function changedPaths(before: Record<string, string>, after: Record<string, string>): string[] {
  const value = (snapshot: Record<string, string>, path: string) => (snapshot[path] === "dir" ? undefined : snapshot[path]);
  return [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((p) => value(before, p) !== value(after, p)).sort();
}

describe("checkpoints keep the user's work safe (real service over the bus)", () => {
  let bus: TestBus;
  let service: ServiceProcess;
  let client: NatsConnection;
  let root: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "aide-cp-safety-"));
    bus = await startTestBus();
    service = await startServiceProcess(bus, "checkpoints", { env: { AIDE_WORKSPACE_ROOTS: root, AIDE_LOG_LEVEL: "info", AIDE_CHECKPOINT_MAX_FILE_BYTES: "200000" } });
    client = await bus.connectAs("orchestrator");
  });
  afterAll(async () => {
    await service?.stop();
    await bus?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  const commit = (ws: string, run: string, extra: Record<string, unknown> = {}) =>
    call(client, "agent.checkpoints.commit", { workspace: ws, session: "s1", run, label: run, ...extra }).then((r) => r.checkpoint.id as string);

  it("leaves every file under the user's .git and a nested repository's .git byte-identical", async () => {
    const ws = join(root, "user-repo");
    mkdirSync(join(ws, "vendor", "lib"), { recursive: true });
    writeFileSync(join(ws, "README.md"), "# project\n");
    git(ws, "init", "-q");
    git(ws, "add", "README.md");
    git(ws, "commit", "-q", "-m", "user commit");
    writeFileSync(join(ws, "vendor", "lib", "lib.c"), "int lib;\n");
    git(join(ws, "vendor", "lib"), "init", "-q");
    git(join(ws, "vendor", "lib"), "add", "-A");
    git(join(ws, "vendor", "lib"), "commit", "-q", "-m", "nested commit");
    const before = hashGitDirectories(ws);
    expect(Object.keys(before).length).toBeGreaterThan(20);

    const first = await commit(ws, "r1");
    writeFileSync(join(ws, "README.md"), "# changed\n");
    writeFileSync(join(ws, "vendor", "lib", "lib.c"), "int lib = 2;\n");
    writeFileSync(join(ws, "vendor", "lib", "new.c"), "int n;\n");
    const second = await commit(ws, "r2");
    const diff = await call(client, "agent.checkpoints.diff", { workspace: ws, from: first, to: second });
    expect(diff.files.map((f: { path: string }) => f.path)).toEqual(["README.md", "vendor/lib/lib.c", "vendor/lib/new.c"]);
    const restored = await call(client, "agent.checkpoints.restore", { workspace: ws, session: "s1", checkpoint: first, mode: "files" });
    expect(restored.plan.created_since).toEqual(["vendor/lib/new.c"]);
    expect(readFileSync(join(ws, "vendor", "lib", "lib.c"), "utf8")).toBe("int lib;\n");
    await call(client, "agent.checkpoints.diff", { workspace: ws, from: second });
    await commit(ws, "r3");
    await call(client, "agent.checkpoints.prune", { workspace: ws, keep_tasks: 1 });
    await call(client, "agent.checkpoints.prune", { workspace: ws, session: "s1", delete_session: true });

    expect(hashGitDirectories(ws)).toEqual(before);
    // The user's git sees the shadow repository only as ignored (through .aide/.gitignore).
    expect(git(ws, "status", "--porcelain")).not.toContain(".aide");
    expect(git(ws, "status", "--porcelain", "--ignored")).toContain("!! .aide/");
  });

  it("round-trips an awkward tree byte for byte, removes created files, leaves excluded folders alone, and does what the preview said", async () => {
    const ws = join(root, "round-trip");
    mkdirSync(ws);
    writeNastyTree(ws);
    const checkpoint = await commit(ws, "r1");
    const atCheckpoint = snapshotTree(ws, [".aide", "node_modules"]);
    mutateNastyTree(ws);
    await commit(ws, "r1");
    const excludedAfterMutation = snapshotTree(join(ws, "node_modules"), []);
    const beforeRestore = snapshotTree(ws, [".aide"]);

    const preview = await call(client, "agent.checkpoints.restore", { workspace: ws, session: "s1", checkpoint, mode: "files", dry_run: true });
    expect(preview.applied).toBe(false);
    expect(snapshotTree(ws, [".aide"])).toEqual(beforeRestore);
    const result = await call(client, "agent.checkpoints.restore", { workspace: ws, session: "s1", checkpoint, mode: "files" });
    expect(result.applied).toBe(true);
    expect(result.plan).toEqual(preview.plan);

    expect(snapshotTree(ws, [".aide", "node_modules"])).toEqual(atCheckpoint);
    expect(snapshotTree(join(ws, "node_modules"), [])).toEqual(excludedAfterMutation);
    expect(existsSync(join(ws, "created.txt"))).toBe(false);
    expect(existsSync(join(ws, "new-folder"))).toBe(false);

    const planned = [...preview.plan.modified, ...preview.plan.created_since, ...preview.plan.deleted_since].sort();
    expect(changedPaths(beforeRestore, snapshotTree(ws, [".aide"]))).toEqual(planned);
    expect(preview.plan.created_since).toContain("new-folder/nested/n.txt");
    expect(preview.plan.deleted_since).toContain("src/deep/er/b.bin");
    expect(preview.plan.modified).toContain("was-exec.sh");

    // Restoring again is a no-op with an empty plan.
    const again = await call(client, "agent.checkpoints.restore", { workspace: ws, session: "s1", checkpoint, mode: "files", dry_run: true });
    expect(again.plan).toEqual({ modified: [], created_since: [], deleted_since: [] });
  });

  it("restores in place only a plain file of its own: a hard link to outside is replaced, never written through; longer and shorter versions come back whole", async () => {
    const ws = join(root, "in-place");
    mkdirSync(ws);
    const outside = join(root, "outside-target.txt");
    writeFileSync(join(ws, "linked.txt"), "checkpointed\n");
    writeFileSync(join(ws, "grows.txt"), "short\n");
    writeFileSync(join(ws, "shrinks.txt"), "a much longer line than the later version\n");
    const checkpoint = await commit(ws, "r1");
    rmSync(join(ws, "linked.txt"));
    writeFileSync(outside, "outside, must stay\n");
    linkSync(outside, join(ws, "linked.txt"));
    writeFileSync(join(ws, "grows.txt"), "x");
    writeFileSync(join(ws, "shrinks.txt"), "tiny\n");
    await commit(ws, "r1");
    const result = await call(client, "agent.checkpoints.restore", { workspace: ws, session: "s1", checkpoint, mode: "files" });
    expect(result.plan.modified.sort()).toEqual(["grows.txt", "linked.txt", "shrinks.txt"]);
    expect(readFileSync(outside, "utf8")).toBe("outside, must stay\n");
    expect(readFileSync(join(ws, "linked.txt"), "utf8")).toBe("checkpointed\n");
    expect(lstatSync(join(ws, "linked.txt")).nlink).toBe(1);
    expect(readFileSync(join(ws, "grows.txt"), "utf8")).toBe("short\n");
    expect(readFileSync(join(ws, "shrinks.txt"), "utf8")).toBe("a much longer line than the later version\n");
  });

  it("refuses to restore over uncheckpointed changes unless forced, and a forced restore keeps a safety checkpoint", async () => {
    const ws = join(root, "changed");
    mkdirSync(ws);
    writeFileSync(join(ws, "f.txt"), "v1\n");
    const v1 = await commit(ws, "r1");
    writeFileSync(join(ws, "f.txt"), "v2\n");
    await commit(ws, "r1");
    writeFileSync(join(ws, "f.txt"), "user edit, never checkpointed\n");

    const preview = await call(client, "agent.checkpoints.restore", { workspace: ws, session: "s1", checkpoint: v1, dry_run: true });
    expect(preview.workspace_changed).toBe(true);
    const refused = await callError(client, "agent.checkpoints.restore", { workspace: ws, session: "s1", checkpoint: v1 });
    expect(refused.code).toBe("WORKSPACE_CHANGED");
    expect(readFileSync(join(ws, "f.txt"), "utf8")).toBe("user edit, never checkpointed\n");

    const forced = await call(client, "agent.checkpoints.restore", { workspace: ws, session: "s1", checkpoint: v1, force: true });
    expect(forced.safety_checkpoint).toMatch(/^[0-9a-f]{40}$/);
    expect(readFileSync(join(ws, "f.txt"), "utf8")).toBe("v1\n");
    const listed = await call(client, "agent.checkpoints.list", { workspace: ws, session: "s1" });
    expect(listed.checkpoints.map((c: { id: string }) => c.id)).toContain(forced.safety_checkpoint);

    // The workspace now matches the restored checkpoint, so going back needs no force.
    await call(client, "agent.checkpoints.restore", { workspace: ws, session: "s1", checkpoint: forced.safety_checkpoint });
    expect(readFileSync(join(ws, "f.txt"), "utf8")).toBe("user edit, never checkpointed\n");
  });

  it("lists files over the size limit as skipped and never touches them", async () => {
    const ws = join(root, "large");
    mkdirSync(ws);
    writeFileSync(join(ws, "small.txt"), "s\n");
    writeFileSync(join(ws, "huge.bin"), Buffer.alloc(300_000, 7));
    const result = await call(client, "agent.checkpoints.commit", { workspace: ws, session: "s1", label: "with a large file" });
    expect(result.skipped).toEqual([{ path: "huge.bin", reason: "larger than 200000 bytes (300000)" }]);
    writeFileSync(join(ws, "small.txt"), "changed\n");
    await commit(ws, "r2");
    await call(client, "agent.checkpoints.restore", { workspace: ws, session: "s1", checkpoint: result.checkpoint.id });
    expect(readFileSync(join(ws, "huge.bin")).length).toBe(300_000);
    expect(readFileSync(join(ws, "small.txt"), "utf8")).toBe("s\n");
  });

  it("diffs text files as unified diffs and names binary files", async () => {
    const ws = join(root, "diff");
    mkdirSync(ws);
    writeFileSync(join(ws, "t.txt"), "a\nb\nc\n");
    writeFileSync(join(ws, "b.bin"), Buffer.from([0, 1, 2]));
    const first = await commit(ws, "r1");
    writeFileSync(join(ws, "t.txt"), "a\nB\nc\n");
    writeFileSync(join(ws, "b.bin"), Buffer.from([0, 1, 3]));
    const working = await call(client, "agent.checkpoints.diff", { workspace: ws, from: first });
    expect(working.files).toEqual([{ path: "b.bin", status: "modified", binary: true }, expect.objectContaining({ path: "t.txt", status: "modified", binary: false })]);
    expect(working.files[1].diff).toContain("-b\n+B\n");
  });

  it("sends a diff over the bus's max payload whole (in chunks), every file listed", async () => {
    const ws = join(root, "huge-diff");
    mkdirSync(join(ws, "many"), { recursive: true });
    writeFileSync(join(ws, "seed.txt"), "seed\n");
    const first = await commit(ws, "r1");
    for (let i = 0; i < 4000; i++) writeFileSync(join(ws, "many", `${"a-long-file-name-".repeat(10)}${i}.txt`), `line ${i}\n`.repeat(50));
    const second = await commit(ws, "r1");
    const diff = await call(client, "agent.checkpoints.diff", { workspace: ws, from: first, to: second });
    expect(diff.omitted).toBeUndefined();
    expect(diff.files.length).toBe(4000);
    expect(diff.files.some((f: { truncated?: boolean }) => f.truncated)).toBe(false);
    const one = diff.files.find((f: { path: string }) => f.path.endsWith("-123.txt"));
    expect(one.diff).toContain("+line 123\n");
    expect(JSON.stringify(diff).length).toBeGreaterThan(1024 * 1024);
  });
});
