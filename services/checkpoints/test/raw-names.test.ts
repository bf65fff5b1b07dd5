import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NatsConnection } from "nats";
import { startTestBus, type TestBus } from "../../../tests/helpers/bus.js";
import { startServiceProcess, type ServiceProcess } from "../../../tests/helpers/service-process.js";
import { call } from "./helpers.js";

/** A path under `base` whose names are given as bytes (a name need not be UTF-8 on Linux). */
const bytePath = (base: string, ...names: Buffer[]) => Buffer.concat([Buffer.from(base), ...names.flatMap((name) => [Buffer.from("/"), name])]);
const latin1Name = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x2e, 0x74, 0x78, 0x74]); // "caf\xe9.txt": latin-1, not UTF-8
const folderName = Buffer.from([0x64, 0x69, 0x72, 0xff]); // "dir\xff"
const innerName = Buffer.from([0x6e, 0x6f, 0x74, 0x65, 0xc3, 0x28]); // "note\xc3(": a broken UTF-8 sequence

describe("file names that are not valid UTF-8", () => {
  let bus: TestBus;
  let service: ServiceProcess;
  let client: NatsConnection;
  let root: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "aide-cp-raw-"));
    bus = await startTestBus();
    service = await startServiceProcess(bus, "checkpoints", { env: { AIDE_WORKSPACE_ROOTS: root } });
    client = await bus.connectAs("orchestrator");
  });
  afterAll(async () => {
    await service?.stop();
    await bus?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  function names(path: string | Buffer): Buffer[] {
    return readdirSync(path, { encoding: "buffer" })
      .filter((name) => !name.equals(Buffer.from(".aide")))
      .sort(Buffer.compare);
  }

  it("are checkpointed under their own bytes and restored byte-exact, beside a real U+FFFD name", async () => {
    const ws = join(root, "raw");
    mkdirSync(ws);
    writeFileSync(bytePath(ws, latin1Name), "latin one\n");
    mkdirSync(bytePath(ws, folderName));
    writeFileSync(bytePath(ws, folderName, innerName), "inside\n");
    writeFileSync(join(ws, "real-\uFFFD.txt"), "a real replacement character\n");
    writeFileSync(join(ws, "plain.txt"), "plain\n");
    const first = await call(client, "agent.checkpoints.commit", { workspace: ws, session: "s1", run: "r1", label: "start" });
    expect(first.skipped).toEqual([]);

    // git itself reads the checkpoint's tree with the exact names.
    const gitdir = join(ws, ".aide", "checkpoints", readdirSync(join(ws, ".aide", "checkpoints"))[0]);
    const listing = execFileSync("git", ["--git-dir", gitdir, "ls-tree", "-r", "-z", "--name-only", first.checkpoint.id]);
    const listed = listing
      .toString("latin1")
      .split("\0")
      .filter(Boolean)
      .map((name) => Buffer.from(name, "latin1"))
      .sort(Buffer.compare);
    expect(listed).toEqual([Buffer.concat([folderName, Buffer.from("/"), innerName]), latin1Name, Buffer.from("plain.txt"), Buffer.from("real-\uFFFD.txt")].sort(Buffer.compare));

    rmSync(bytePath(ws, latin1Name));
    rmSync(bytePath(ws, folderName), { recursive: true });
    writeFileSync(join(ws, "plain.txt"), "changed\n");
    const restored = await call(client, "agent.checkpoints.restore", { workspace: ws, session: "s1", checkpoint: first.checkpoint.id, mode: "files_and_task", force: true });
    expect(restored.applied).toBe(true);
    // Shown to people with the bytes that are not UTF-8 escaped.
    expect(restored.plan.deleted_since.sort()).toEqual(["caf\\xe9.txt", "dir\\xff/note\\xc3("]);
    expect(restored.plan.modified).toEqual(["plain.txt"]);

    expect(names(ws)).toEqual([folderName, latin1Name, Buffer.from("plain.txt"), Buffer.from("real-\uFFFD.txt")].sort(Buffer.compare));
    expect(readFileSync(bytePath(ws, latin1Name), "utf8")).toBe("latin one\n");
    expect(names(bytePath(ws, folderName))).toEqual([innerName]);
    expect(readFileSync(bytePath(ws, folderName, innerName), "utf8")).toBe("inside\n");
    expect(readFileSync(join(ws, "plain.txt"), "utf8")).toBe("plain\n");
  });

  it("a changed path that lost its bytes to U+FFFD rescans its folder instead of dropping the file", async () => {
    const ws = join(root, "changed");
    mkdirSync(join(ws, "sub"), { recursive: true });
    writeFileSync(join(ws, "sub", "a.txt"), "a\n");
    const first = await call(client, "agent.checkpoints.commit", { workspace: ws, session: "s2", run: "r1", label: "start" });
    writeFileSync(bytePath(ws, Buffer.from("sub"), latin1Name), "new\n");
    // What a UTF-8 caller reports for that name: the bytes became U+FFFD.
    const second = await call(client, "agent.checkpoints.commit", { workspace: ws, session: "s2", run: "r1", label: "after", changed_paths: [`sub/${latin1Name.toString("utf8")}`] });
    expect(second.checkpoint.files_changed).toBe(1);
    const diff = await call(client, "agent.checkpoints.diff", { workspace: ws, from: first.checkpoint.id, to: second.checkpoint.id });
    expect(diff.files.map((file: { path: string }) => file.path)).toEqual(["sub/caf\\xe9.txt"]);
  });
});
