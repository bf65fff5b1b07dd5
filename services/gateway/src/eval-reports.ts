import { lstatSync, readdirSync, readFileSync, type Stats } from "node:fs";
import { join } from "node:path";
import { aideError, type EvalLatestReply } from "@aide/contracts";

/** The files of a run folder the gateway serves besides report.json, by name, with their media type. */
const servedTypes: Array<[RegExp, string]> = [
  [/^report\.html$/, "text/html; charset=utf-8"],
  [/^report\.md$/, "text/markdown; charset=utf-8"],
  [/^report\.json$/, "application/json; charset=utf-8"],
  [/^[A-Za-z0-9][A-Za-z0-9._-]*\.svg$/, "image/svg+xml"],
];

/** report.json is a scoreboard; anything larger is not one (and would not fit a reply comfortably). */
const maxReportBytes = 16 << 20;

export interface EvalFile {
  contentType: string;
  body: Buffer;
}

export interface EvalReports {
  latest(): EvalLatestReply;
  /** One file of the latest run, looked up among the folder's own entries (a name, never a path). */
  file(name: string): EvalFile;
}

function statOf(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function notFound(detail: string): Error {
  return aideError("NOT_FOUND", { detail });
}

/**
 * The eval runs under `$AIDE_HOME/eval` (what `aide eval` writes; read-only in the gateway's
 * sandbox). The latest run is the folder whose report.json was written last; symbolic links and
 * anything but regular files are never served.
 */
export function createEvalReports(evalDir: string | undefined): EvalReports {
  const latestRun = (): { run: string; folder: string; written: Date } => {
    if (evalDir === undefined) throw notFound("no eval report: the gateway was started without AIDE_HOME, so it has no eval folder");
    let entries: string[];
    try {
      entries = readdirSync(evalDir);
    } catch {
      entries = [];
    }
    let best: { run: string; folder: string; written: Date } | undefined;
    for (const run of entries) {
      const folder = join(evalDir, run);
      if (!statOf(folder)?.isDirectory()) continue;
      const report = statOf(join(folder, "report.json"));
      if (!report?.isFile()) continue;
      if (!best || report.mtimeMs > best.written.getTime() || (report.mtimeMs === best.written.getTime() && run > best.run)) best = { run, folder, written: report.mtime };
    }
    if (!best) throw notFound(`no eval report: no run folder under ${evalDir} has a report.json yet (run \`aide eval --model <id>\`)`);
    return best;
  };
  const servedFiles = (folder: string): string[] =>
    readdirSync(folder)
      .filter((name) => servedTypes.some(([pattern]) => pattern.test(name)) && statOf(join(folder, name))?.isFile())
      .sort();
  return {
    latest() {
      const { run, folder, written } = latestRun();
      const path = join(folder, "report.json");
      const size = statOf(path)?.size ?? 0;
      if (size > maxReportBytes) throw notFound(`the latest eval run ${run} has a report.json of ${size} bytes, over the ${maxReportBytes} the gateway serves; open it from ${folder}`);
      let report: unknown;
      try {
        report = JSON.parse(readFileSync(path, "utf8"));
      } catch (error) {
        throw notFound(`the latest eval run ${run} has a report.json that is not JSON (${(error as Error).message}); it may still be being written`);
      }
      return { run, written_at: written.toISOString(), report, files: servedFiles(folder) };
    },
    file(name) {
      const { run, folder } = latestRun();
      const type = servedTypes.find(([pattern]) => pattern.test(name))?.[1];
      // The name must be one of the folder's own entries: the request never builds a path.
      const entry = type === undefined ? undefined : readdirSync(folder).find((candidate) => candidate === name);
      if (entry === undefined || !statOf(join(folder, entry))?.isFile())
        throw notFound(`the latest eval run ${run} has no file ${JSON.stringify(name)} the gateway serves (see GET /api/eval/latest for its files)`);
      return { contentType: type!, body: readFileSync(join(folder, entry)) };
    },
  };
}
