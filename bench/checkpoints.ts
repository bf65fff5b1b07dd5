/**
 * npm run bench:checkpoints — our checkpoints service (a real process, through the bus) against
 * the git CLI doing the equivalent in its own shadow repository (`add -A && commit`), on two
 * identical generated workspaces of 10,000 files in 200 folders (about 60 MB), in one run:
 * first checkpoint, no change, one file changed, 100 files changed, restores of 100 and 1,000
 * changed files and of a deleted folder of 1,000 files, and ours with the changed paths passed in. Then the shadow repositories' size on disk.
 */
import { execFileSync, spawn } from "node:child_process";
import { openSync } from "node:fs";
import { mkdirSync, mkdtempSync, readdirSync, lstatSync, rmSync, writeFileSync, readFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type NatsConnection } from "nats";
import { decodeJson, encodeJson, startNatsServer, waitForService } from "@aide/runtime";
import { percentile, repoRoot, writeBenchResult } from "./lib/results.js";

const folders = Number(process.env.BENCH_FOLDERS ?? 200);
const filesPerFolder = Number(process.env.BENCH_FILES_PER_FOLDER ?? 50);
const averageBytes = Number(process.env.BENCH_FILE_BYTES ?? 6000);
const repeats = Number(process.env.BENCH_REPEATS ?? 5);
/** Which side runs first in each round, for every timed case: alternating, or (BENCH_RESTORE_ORDER=ours-first) always ours. */
const restoreOrder = process.env.BENCH_RESTORE_ORDER === "ours-first" ? "ours-first" : "alternate";

/** Deterministic source-like text: words from a small vocabulary, so it compresses like code. */
function makeGenerator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state;
  };
  const words = [
    "const",
    "let",
    "function",
    "return",
    "if",
    "else",
    "for",
    "await",
    "async",
    "import",
    "export",
    "from",
    "value",
    "index",
    "result",
    "error",
    "node",
    "tree",
    "commit",
    "path",
    "=",
    "{",
    "}",
    "(",
    ")",
    ";",
    "=>",
    "null",
    "true",
    "false",
  ];
  return (bytes: number) => {
    const parts: string[] = [];
    let length = 0;
    while (length < bytes) {
      const line = Array.from({ length: 4 + (next() % 8) }, () => words[next() % words.length]).join(" ") + ` // ${next().toString(36)}\n`;
      parts.push(line);
      length += line.length;
    }
    return parts.join("").slice(0, bytes);
  };
}

function generateWorkspace(dir: string): string[] {
  const text = makeGenerator(42);
  const sizes = makeGenerator(7);
  const files: string[] = [];
  for (let f = 0; f < folders; f++) {
    const folder = join(dir, `pkg${Math.floor(f / 20)}`, `mod${f}`);
    mkdirSync(folder, { recursive: true });
    for (let i = 0; i < filesPerFolder; i++) {
      const rel = `pkg${Math.floor(f / 20)}/mod${f}/file${i}.ts`;
      const size = Math.max(200, Math.round(averageBytes * (0.5 + (sizes(4).charCodeAt(0) % 32) / 32)));
      writeFileSync(join(dir, rel), text(size));
      files.push(rel);
    }
  }
  return files;
}

function diskBytes(root: string): number {
  let total = 0;
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const stats = lstatSync(join(dir, name));
      total += stats.blocks * 512;
      if (stats.isDirectory()) walk(join(dir, name));
    }
  };
  walk(root);
  return total;
}

/** Allocated bytes under `root` by kind of file: packs, pack indexes, loose objects, the stat cache or git index, the rest. */
function diskBreakdown(root: string): Record<string, number> {
  const out: Record<string, number> = {};
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const stats = lstatSync(path);
      const inner = rel === "" ? name : `${rel}/${name}`;
      const kind = name.endsWith(".pack")
        ? "pack"
        : name.endsWith(".idx")
          ? "pack_index"
          : /^objects\/[0-9a-f]{2}\//.test(inner)
            ? "loose_objects"
            : name === "aide-stat-cache" || name === "index"
              ? "stat_cache_or_index"
              : stats.isDirectory()
                ? "folders"
                : "other";
      out[kind] = (out[kind] ?? 0) + stats.blocks * 512;
      if (stats.isDirectory()) walk(path, inner);
    }
  };
  walk(root, "");
  return out;
}

const ms = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e6;

async function main() {
  const loadAtStart = loadavg().map((v) => Math.round(v * 100) / 100);
  const base = mkdtempSync(join(tmpdir(), "aide-bench-cp-"));
  const oursWs = join(base, "ours");
  const gitWs = join(base, "git");
  const gitDir = join(base, "git-shadow");
  const runDir = join(base, "bus");
  mkdirSync(runDir);
  const files = generateWorkspace(oursWs);
  generateWorkspace(gitWs);
  const workspaceBytes = files.reduce((sum, f) => sum + lstatSync(join(oursWs, f)).size, 0);

  const server = await startNatsServer({ runDir });
  // BENCH_SERVICE_PROF=<folder>: a V8 CPU profile of the service process (node --cpu-prof), written when it exits.
  const profile = process.env.BENCH_SERVICE_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_SERVICE_PROF}`] : [];
  const child = spawn(process.execPath, [...profile, join(repoRoot, "services", "checkpoints", "dist", "main.js")], {
    env: {
      PATH: process.env.PATH ?? "",
      AIDE_NATS_URL: server.url,
      AIDE_NATS_CREDS: server.credentialFiles.checkpoints,
      AIDE_LOG_LEVEL: process.env.BENCH_SERVICE_LOG ? "debug" : "warn",
      AIDE_WORKSPACE_ROOTS: base,
    },
    // BENCH_SERVICE_LOG=<file>: the service's debug log (per-phase timings of each commit).
    stdio: ["ignore", "ignore", process.env.BENCH_SERVICE_LOG ? openSync(process.env.BENCH_SERVICE_LOG, "w") : "inherit"],
  });
  const creds = server.credentials.orchestrator;
  const connection: NatsConnection = await connect({ servers: server.url, user: creds.user, pass: creds.password, inboxPrefix: creds.inbox_prefix });
  const git = (...args: string[]) => execFileSync("git", [`--git-dir=${gitDir}`, `--work-tree=${gitWs}`, ...args], { stdio: ["ignore", "pipe", "pipe"] }).toString();
  const gitCommit = (label: string) => {
    git("add", "-A");
    git("-c", "user.name=bench", "-c", "user.email=bench@invalid", "commit", "-q", "--allow-empty", "--no-verify", "-m", label);
    return git("rev-parse", "HEAD").trim();
  };
  const call = async (subject: string, body: unknown) => {
    const reply = decodeJson((await connection.request(subject, encodeJson(body), { timeout: 300_000 })).data) as { ok: boolean; result?: any; error?: { code: string; message: string } };
    if (!reply.ok) throw new Error(`${subject}: ${reply.error?.code} ${reply.error?.message}`);
    return reply.result;
  };
  let runIndex = 0;
  const serviceMs: number[] = [];
  const ourCommit = async (label: string, changed?: string[]) => {
    const result = await call("agent.checkpoints.commit", { workspace: oursWs, session: "bench", run: `r${runIndex++}`, label, timeout_ms: 300_000, ...(changed ? { changed_paths: changed } : {}) });
    serviceMs.push(result.duration_ms);
    return result.checkpoint.id as string;
  };

  const supervisorCreds = server.credentials.supervisor;
  const pinger = await connect({ servers: server.url, user: supervisorCreds.user, pass: supervisorCreds.password, inboxPrefix: supervisorCreds.inbox_prefix });
  try {
    await waitForService(pinger, "checkpoints", { timeoutMs: 15_000 });
    execFileSync("git", ["init", "-q", "--bare", gitDir]);
    git("config", "core.bare", "false");
    // No background auto-gc stealing CPU from the other side's timings; `git gc` runs at the end, as our prune does.
    git("config", "gc.auto", "0");
    writeFileSync(join(gitDir, "info", "exclude"), ".aide/\n");

    const cases: Record<string, { ours_ms: number; git_ms: number; ratio: number; ours_runs: number[]; git_runs: number[]; ours_in_service_ms?: number[]; load_1m: number }> = {};
    const record = (name: string, ours: number[], gitRuns: number[], inService?: number[]) => {
      const o = percentile(ours, 50);
      const g = percentile(gitRuns, 50);
      const round = (v: number) => Math.round(v * 10) / 10;
      // The machine is shared: the 1-minute load average as the case ends says how far to trust it.
      const load = Math.round(loadavg()[0] * 100) / 100;
      cases[name] = {
        ours_ms: round(o),
        git_ms: round(g),
        ratio: Math.round((o / g) * 100) / 100,
        ours_runs: ours.map(round),
        git_runs: gitRuns.map(round),
        ...(inService ? { ours_in_service_ms: inService.map(round) } : {}),
        load_1m: load,
      };
      process.stderr.write(
        `${name}: ours ${round(o)} ms, git ${round(g)} ms, ratio ${cases[name].ratio} (runs ${cases[name].ours_runs.join("/")} vs ${cases[name].git_runs.join("/")}), load ${load}\n`,
      );
    };

    // First checkpoint (once each: it is the cold, whole-tree case).
    let started = process.hrtime.bigint();
    await ourCommit("first");
    const oursFirst = ms(started);
    started = process.hrtime.bigint();
    gitCommit("first");
    record("first_checkpoint", [oursFirst], [ms(started)], serviceMs.splice(0));

    // No change.
    const oursRuns: number[] = [];
    const gitRuns: number[] = [];
    // Which side goes first alternates (ours first in even rounds), as in the restores below.
    const inTurn = async (round: number, ours: () => Promise<void>, theirs: () => void) => {
      if (round % 2 === 0 || restoreOrder === "ours-first") {
        await ours();
        theirs();
      } else {
        theirs();
        await ours();
      }
    };
    for (let i = 0; i < repeats; i++) {
      await inTurn(
        i,
        async () => {
          started = process.hrtime.bigint();
          await ourCommit("no change");
          oursRuns.push(ms(started));
        },
        () => {
          started = process.hrtime.bigint();
          gitCommit("no change");
          gitRuns.push(ms(started));
        },
      );
    }
    record("no_change", oursRuns, gitRuns, serviceMs.splice(0));

    const mutate = (paths: string[], round: number) => {
      for (const rel of paths) {
        for (const ws of [oursWs, gitWs]) writeFileSync(join(ws, rel), `${readFileSync(join(ws, rel), "utf8")}// edit ${round}\n`);
      }
    };
    const pick = (count: number, round: number) => Array.from({ length: count }, (_, i) => files[(i * 97 + round * 13) % files.length]);

    for (const [name, count, passPaths] of [
      ["one_file_changed", 1, false],
      ["hundred_files_changed", 100, false],
      ["one_file_changed_paths_passed", 1, true],
      ["hundred_files_changed_paths_passed", 100, true],
    ] as const) {
      const ours: number[] = [];
      const gitTimes: number[] = [];
      const inService: number[] = [];
      for (let i = 0; i < repeats; i++) {
        const paths = pick(count, i + (passPaths ? 100 : 0) + count);
        mutate(paths, i);
        await inTurn(
          i,
          async () => {
            started = process.hrtime.bigint();
            await ourCommit(name, passPaths ? paths : undefined);
            ours.push(ms(started));
            inService.push(...serviceMs.splice(0));
          },
          () => {
            started = process.hrtime.bigint();
            gitCommit(name);
            gitTimes.push(ms(started));
          },
        );
      }
      record(name, ours, gitTimes, inService);
    }

    // Restores to the checkpoint before a change: of 100 and of 1,000 changed files, and after a
    // whole folder of 1,000 files was deleted (both sides delete the same folder).
    const restoreCase = async (name: string, change: (round: number) => string[], expect: { modified: number; deleted: number }) => {
      const oursRestore: number[] = [];
      const gitRestore: number[] = [];
      for (let i = 0; i < repeats; i++) {
        const oursBefore = await ourCommit(`before ${name}`);
        const gitBefore = gitCommit(`before ${name}`);
        const paths = change(i);
        await ourCommit(`after ${name}`, paths);
        gitCommit(`after ${name}`);
        const ours = async () => {
          started = process.hrtime.bigint();
          const restored = await call("agent.checkpoints.restore", { workspace: oursWs, session: "bench", checkpoint: oursBefore, mode: "files" });
          oursRestore.push(ms(started));
          if (restored.plan.modified.length !== expect.modified || restored.plan.deleted_since.length !== expect.deleted) {
            throw new Error(
              `${name}: restore planned ${restored.plan.modified.length} modified and ${restored.plan.deleted_since.length} deleted files, expected ${expect.modified} and ${expect.deleted}`,
            );
          }
        };
        const theirs = () => {
          started = process.hrtime.bigint();
          git("checkout", gitBefore, "--", ".");
          gitRestore.push(ms(started));
        };
        // Whoever writes first right after the change (thousands of unlinks or writes on both
        // sides) meets the file system's backlog of it (ext4's journal): the order alternates,
        // ours first in even rounds (BENCH_RESTORE_ORDER=ours-first: always ours first).
        await inTurn(i, ours, theirs);
      }
      record(name, oursRestore, gitRestore);
    };
    await restoreCase(
      "restore_100_files",
      (round) => {
        const paths = pick(100, 500 + round);
        mutate(paths, 500 + round);
        return paths;
      },
      { modified: 100, deleted: 0 },
    );
    await restoreCase(
      "restore_1000_files",
      (round) => {
        const paths = [...new Set(pick(1000, 700 + round))];
        mutate(paths, 700 + round);
        return paths;
      },
      { modified: new Set(pick(1000, 700)).size, deleted: 0 },
    );
    const folderFiles = files.filter((file) => file.startsWith("pkg3/"));
    await restoreCase(
      "restore_deleted_folder",
      () => {
        for (const ws of [oursWs, gitWs]) rmSync(join(ws, "pkg3"), { recursive: true, force: true });
        return ["pkg3"];
      },
      { modified: 0, deleted: folderFiles.length },
    );

    // Size on disk: ours before and after prune (keeping every task, so the same history as git's), git's as left by its run and after gc.
    const oursUsage = await call("agent.checkpoints.usage", { workspace: oursWs });
    const pruneStarted = process.hrtime.bigint();
    const pruned = await call("agent.checkpoints.prune", { workspace: oursWs, keep_tasks: 1000 });
    const pruneMs = ms(pruneStarted);
    const gitBytes = diskBytes(gitDir);
    const shadowBase = join(oursWs, ".aide", "checkpoints");
    const oursBreakdown = diskBreakdown(join(shadowBase, readdirSync(shadowBase)[0]!));
    serviceMs.splice(0);
    const gcStarted = process.hrtime.bigint();
    git("gc", "-q", "--prune=now");
    const gcMs = ms(gcStarted);
    const gitGcBytes = diskBytes(gitDir);
    const size = {
      workspace_bytes: workspaceBytes,
      ours_bytes_before_prune: oursUsage.bytes,
      ours_bytes: pruned.after.bytes,
      git_bytes: gitBytes,
      git_gc_bytes: gitGcBytes,
      ratio: Math.round((pruned.after.bytes / gitBytes) * 100) / 100,
      ratio_vs_git_gc: Math.round((pruned.after.bytes / gitGcBytes) * 100) / 100,
      ours_prune_ms: Math.round(pruneMs),
      git_gc_ms: Math.round(gcMs),
      checkpoints: pruned.after.checkpoints,
      ours_breakdown: oursBreakdown,
      git_gc_breakdown: diskBreakdown(gitDir),
    };
    process.stderr.write(`size: ${JSON.stringify(size)}\n`);
    const path = writeBenchResult("checkpoints", {
      workspace: { files: files.length, folders, bytes: workspaceBytes },
      repeats,
      cases,
      size,
      restore_order: restoreOrder,
      load_average: { start: loadAtStart, end: loadavg().map((v) => Math.round(v * 100) / 100) },
      targets: { time_ratio_max: 2.0, paths_passed_ratio_max: 0.5, disk_ratio_max: 1.5 },
    });
    process.stderr.write(`wrote ${path}\n`);
  } finally {
    await connection.close();
    await pinger.close();
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
    await server.stop();
    rmSync(base, { recursive: true, force: true });
  }
}

await main();
