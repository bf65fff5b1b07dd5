import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { execa } from "execa";
import type { Logger } from "pino";
import type { Diagnostic } from "./diagnostic.js";
import type { CheckOutcome, Checker } from "./checker.js";
import { commandInMountJail, plainCommand } from "./diagnostics-worker-command.js";

export interface GoVetCheckerOptions {
  /** The real path of `go` (found on PATH at start). */
  go: string;
  /** Whether to run it in its mount jail (bubblewrap present). */
  jailed: boolean;
  timeoutMs: number;
  /**
   * Go's build cache, kept between checks (and restarts, in the tools service's state folder):
   * go vet needs the compiled export data of every import, and compiling the standard library cold
   * takes about a minute on two cores. The service's own folder, never the workspace.
   */
  cacheDirectory: string;
  logger?: Logger;
}

const line = /^(?:vet: )?(.+?\.go):(\d+):(\d+):\s*(.*)$/;

/**
 * `go vet`'s lines about `file` (its compile errors and vet findings): `path:line:col: message`,
 * the path relative to the folder go ran in (`cwd`). With `-overlay`, go names the overlay's
 * file, not the file it replaces: `aliases` are those names.
 */
export function parseGoVet(output: string, file: string, text: string, cwd = dirname(file), aliases: readonly string[] = []): Diagnostic[] {
  const lines = text.split("\n");
  const names = new Set([file, ...aliases]);
  const found: Diagnostic[] = [];
  for (const entry of output.split("\n")) {
    const match = line.exec(entry.trim());
    if (match === null || !names.has(resolve(cwd, match[1]))) continue;
    const row = Number(match[2]);
    found.push({ line: row, column: Number(match[3]), code: "go-vet", severity: "error", message: match[4], text: (lines[row - 1] ?? "").trim() });
  }
  return found;
}

/** Whether go's output names any position at all (a finding or a compile error somewhere in the package). */
const namesAPosition = (output: string) => output.split("\n").some((entry) => line.test(entry.trim()));

/**
 * `go vet` on the package of the edited file, once per text: each text is laid over the file on
 * disk with Go's own `-overlay` build flag, so the text before an edit is checked without writing
 * it anywhere in the workspace. Runs in the same mount jail as the other checkers (GOROOT and the
 * module cache read-only, its build cache the only writable place, no network, GOPROXY=off: a
 * missing dependency is an error, never a download), killed at its timeout. Not a warm process:
 * go's build cache is what it reuses. A failure that names no position (no go.mod, a broken
 * module) is a failed check, never "no problems".
 */
export class GoVetChecker implements Checker {
  readonly source = "go vet";

  constructor(private readonly options: GoVetCheckerOptions) {}

  async check(root: string, path: string, versions: string[], signal?: AbortSignal): Promise<CheckOutcome> {
    const file = join(root, path);
    const cwd = dirname(file);
    const scratch = await mkdtemp(join(tmpdir(), "aide-govet-"));
    try {
      await mkdir(this.options.cacheDirectory, { recursive: true });
      const results: Diagnostic[][] = [];
      for (const [index, text] of versions.entries()) {
        // The copy keeps the file's name, so go's messages read as about that file.
        const copy = join(scratch, `v${index}`, basename(file));
        await mkdir(dirname(copy));
        await writeFile(copy, text);
        const overlay = join(scratch, `overlay${index}.json`);
        await writeFile(overlay, JSON.stringify({ Replace: { [file]: copy } }));
        const goroot = dirname(dirname(this.options.go));
        const modcache = join(process.env.HOME ?? "/root", "go", "pkg", "mod");
        const argv = [this.options.go, "vet", `-overlay=${overlay}`, "."];
        const folders = [goroot, scratch, ...(existsSync(modcache) ? [modcache] : [])];
        const command = this.options.jailed ? commandInMountJail(argv, folders, { chdir: cwd, writable: [this.options.cacheDirectory] }) : plainCommand(argv);
        const { file: program, args } = command(root);
        const run = await execa(program, args, {
          cwd,
          reject: false,
          timeout: this.options.timeoutMs,
          ...(signal !== undefined ? { cancelSignal: signal } : {}),
          env: { GOCACHE: this.options.cacheDirectory, GOPROXY: "off", GOTOOLCHAIN: "local", GOTELEMETRY: "off", GOFLAGS: "", ...(existsSync(modcache) ? { GOMODCACHE: modcache } : {}) },
        });
        if (run.timedOut) return { ok: false, timedOut: true, message: `go vet did not finish in ${this.options.timeoutMs} ms and was stopped` };
        const output = `${String(run.stdout)}\n${String(run.stderr)}`;
        if (run.exitCode !== 0 && ((run.exitCode !== 1 && run.exitCode !== 2) || !namesAPosition(output))) {
          return { ok: false, timedOut: false, message: `go vet failed (exit ${run.exitCode}): ${String(run.stderr).trim().slice(0, 300)}` };
        }
        results.push(parseGoVet(output, file, text, cwd, [copy]));
      }
      return { ok: true, results };
    } catch (error) {
      this.options.logger?.warn({ err: error, path }, "go vet failed");
      return { ok: false, timedOut: false, message: (error as Error).message };
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }

  close(): void {}
}
