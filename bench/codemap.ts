/**
 * npm run bench:codemap — the code map's cost. A generated 5,000-file TypeScript + Python tree. Ours: the tools
 * service's code intelligence in process (the jail's walk, the content-hash tag cache, the ranked
 * map within 1,000 tokens), cold and after one file changed. The anchor, in the same process with
 * the same tree-sitter queries: `rg --files` then read and parse every file, then the same ranking
 * and rendering (an anchor has no cache, so "after one change" is the same full pass). The cold case runs
 * each side on a dropped page cache and on a warm one. Then the
 * diagnostics latency of an edit (the warm TypeScript worker, before and after text) against
 * `tsc --noEmit -p` on the same 200-file project, and for Python the warm pyright language server
 * against the pyright CLI (`pyright --outputjson -p`) on a 200-file Python project. Grammars are loaded once before the timings. Figures and ratios in bench/results/codemap.json.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync, appendFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import {
  CodeIntelligence,
  TreeSitterParsers,
  extractTags,
  grammarFor,
  openWorkspace,
  plainCommand,
  plainWorker,
  PyrightChecker,
  pyrightLanguageServer,
  rankFiles,
  renderCodeMap,
  TypeScriptChecker,
} from "@aide/tools";
import { repoRoot, writeBenchResult } from "./lib/results.js";

const fileCount = Number(process.env.BENCH_FILES ?? 5000);
const budget = 1000;
const focus = { paths: [], identifiers: ["helper_17_0"] };

function generate(root: string, files: number): string[] {
  const paths: string[] = [];
  for (let index = 0; index < files; index += 1) {
    const folder = join(root, `pkg${index % 50}`);
    mkdirSync(folder, { recursive: true });
    const other = (index * 7919) % files;
    if (index % 2 === 0) {
      const path = `pkg${index % 50}/module${index}.ts`;
      writeFileSync(
        join(root, path),
        `import { helper${other}_0 } from "./x";\n\nexport interface Shape${index} {\n  area(): number;\n}\n\nexport class Store${index} {\n  get(key: string): string {\n    return helper${other}_0(key);\n  }\n}\n\nexport function helper${index}_0(value: string): string {\n  return value + Store${other}.name;\n}\n`,
      );
      paths.push(path);
    } else {
      const path = `pkg${index % 50}/module${index}.py`;
      writeFileSync(
        join(root, path),
        `from x import helper_${other}_0\n\nLIMIT_${index} = 3\n\n\nclass Repo${index}:\n    def load(self, key):\n        return helper_${other}_0(key)\n\n\ndef helper_${index}_0(value):\n    return Repo${other}().load(value)\n`,
      );
      paths.push(path);
    }
  }
  return paths;
}

/** Both sides use these, loaded before any timing: the one-time WASM compile of a grammar is not the map's cost. */
const parsers = new TreeSitterParsers();

async function anchorPass(root: string): Promise<{ ms: number; files: number }> {
  const started = performance.now();
  const listed = await execa("rg", ["--files"], { cwd: root });
  const files = new Map();
  for (const path of listed.stdout.split("\n").filter(Boolean)) {
    const grammar = grammarFor(path);
    if (grammar?.wasm == null) continue;
    const loaded = await parsers.grammar(grammar.language, grammar.wasm);
    files.set(path, extractTags(loaded, await readFile(join(root, path), "utf8")));
  }
  renderCodeMap(rankFiles(files, focus), files, budget);
  return { ms: performance.now() - started, files: files.size };
}

/**
 * Drops the page cache (`sync`, then `1` into /proc/sys/vm/drop_caches; needs root), so the pass
 * after it reads the tree from disk. False when it could not (not root, or a read-only /proc).
 */
async function dropPageCache(): Promise<boolean> {
  try {
    await execa("sync");
    writeFileSync("/proc/sys/vm/drop_caches", "1");
    return true;
  } catch {
    return false;
  }
}

async function oursPass(code: CodeIntelligence, root: string): Promise<{ ms: number; read: number; parsed: number; files: number; mapFiles: number }> {
  const started = performance.now();
  const workspace = await openWorkspace(root, []);
  const { files, stats } = await code.current(workspace);
  const map = renderCodeMap(rankFiles(files, focus), files, budget);
  return { ms: performance.now() - started, read: stats.read, parsed: stats.parsed, files: stats.files, mapFiles: map.files.length };
}

async function diagnosticsFigures(): Promise<Record<string, unknown>> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "aide-bench-tsc-")));
  try {
    writeFileSync(join(root, "tsconfig.json"), '{ "compilerOptions": { "strict": true, "noEmit": true, "target": "ES2022", "skipLibCheck": true }, "include": ["src"] }\n');
    mkdirSync(join(root, "src"));
    for (let index = 0; index < 200; index += 1) {
      const next = (index + 1) % 200;
      writeFileSync(
        join(root, "src", `m${index}.ts`),
        `import { f${next} } from "./m${next}";\nexport type T${index} = { id: number; name: string };\nexport function f${index}(value: T${index}): number {\n  return value.id + (${index} > 0 ? 0 : f${next}({ id: 1, name: "x" } as never));\n}\n`,
      );
    }
    const checker = new TypeScriptChecker({ command: plainWorker(), timeoutMs: 300_000, idleMs: 600_000 });
    const before = readFileSync(join(root, "src/m5.ts"), "utf8");
    const after = before.replace("value.id", "value.name");
    const coldStarted = performance.now();
    const cold = await checker.check(root, "src/m5.ts", [before, after]);
    const coldMs = performance.now() - coldStarted;
    const warmTimes: number[] = [];
    let newProblems = 0;
    for (let round = 0; round < 5; round += 1) {
      const started = performance.now();
      const warm = await checker.check(root, "src/m5.ts", [before, after.replace("value.name", `value.name + ${round}`)]);
      warmTimes.push(performance.now() - started);
      if (warm.ok) newProblems = warm.results[1].length - warm.results[0].length;
    }
    checker.close();
    const tscStarted = performance.now();
    await execa(process.execPath, [join(repoRoot, "node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", root], { reject: false });
    const tscMs = performance.now() - tscStarted;
    const warmMedian = [...warmTimes].sort((a, b) => a - b)[2];
    return {
      project_files: 200,
      cold_first_check_ms: Math.round(coldMs),
      cold_ok: cold.ok,
      warm_edit_check_median_ms: Math.round(warmMedian),
      new_problems_seen: newProblems,
      tsc_noemit_ms: Math.round(tscMs),
      warm_over_tsc: Number((warmMedian / tscMs).toFixed(3)),
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** The Python side: a warm pyright language server's edit check against one pyright CLI run on the project. */
async function pythonDiagnosticsFigures(): Promise<Record<string, unknown>> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "aide-bench-pyright-")));
  try {
    writeFileSync(join(root, "pyrightconfig.json"), '{ "include": ["pkg"], "pythonVersion": "3.11" }\n');
    mkdirSync(join(root, "pkg"));
    writeFileSync(join(root, "pkg", "__init__.py"), "");
    for (let index = 0; index < 200; index += 1) {
      const next = (index + 1) % 200;
      writeFileSync(
        join(root, "pkg", `m${index}.py`),
        `from pkg.m${next} import f${next}\n\n\nclass T${index}:\n    def __init__(self, id: int, name: str) -> None:\n        self.id = id\n        self.name = name\n\n\ndef f${index}(value: T${index}) -> int:\n    total = value.id\n    return total + (0 if ${index} > 0 else f${next}(None))  # type: ignore[arg-type]\n`,
      );
    }
    const checker = new PyrightChecker({ command: plainCommand([process.execPath, pyrightLanguageServer, "--stdio"]), timeoutMs: 300_000, idleMs: 600_000 });
    const before = readFileSync(join(root, "pkg/m5.py"), "utf8");
    const after = before.replace("total = value.id", "total = value.nme");
    const coldStarted = performance.now();
    const cold = await checker.check(root, "pkg/m5.py", [before, after]);
    const coldMs = performance.now() - coldStarted;
    const warmTimes: number[] = [];
    let newProblems = 0;
    for (let round = 0; round < 5; round += 1) {
      const started = performance.now();
      const warm = await checker.check(root, "pkg/m5.py", [before, after.replace("total = value.nme", `total = value.nme + ${round}`)]);
      warmTimes.push(performance.now() - started);
      if (warm.ok) newProblems = warm.results[1].length - warm.results[0].length;
    }
    checker.close();
    const cliStarted = performance.now();
    await execa(process.execPath, [join(repoRoot, "node_modules", "pyright", "index.js"), "--outputjson", "-p", root], { reject: false });
    const cliMs = performance.now() - cliStarted;
    const warmMedian = [...warmTimes].sort((a, b) => a - b)[2];
    return {
      project_files: 200,
      cold_first_check_ms: Math.round(coldMs),
      cold_ok: cold.ok,
      warm_edit_check_median_ms: Math.round(warmMedian),
      new_problems_seen: newProblems,
      pyright_cli_ms: Math.round(cliMs),
      warm_over_cli: Number((warmMedian / cliMs).toFixed(3)),
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const root = realpathSync(mkdtempSync(join(tmpdir(), "aide-bench-codemap-")));
try {
  const load = loadavg()[0];
  const paths = generate(root, fileCount);
  for (const [language, wasm] of [
    ["typescript", "tree-sitter-typescript.wasm"],
    ["python", "tree-sitter-python.wasm"],
  ])
    await parsers.grammar(language, wasm);
  // Like with like: each side once on a cold page cache (dropped just before it) and
  // once on a warm one, ours always with an empty tag cache; the warm pair goes in the other order.
  const droppedForAnchor = await dropPageCache();
  const anchorColdDisk = await anchorPass(root);
  const droppedForOurs = await dropPageCache();
  const coldDisk = await oursPass(new CodeIntelligence(parsers), root);
  const code = new CodeIntelligence(parsers);
  const cold = await oursPass(code, root);
  const anchorCold = await anchorPass(root);
  appendFileSync(join(root, paths[10]), paths[10].endsWith(".ts") ? "\nexport function added(): number {\n  return 1;\n}\n" : "\n\ndef added():\n    return 1\n");
  const anchorChanged = await anchorPass(root);
  const changed = await oursPass(code, root);
  const diagnostics = await diagnosticsFigures();
  const pythonDiagnostics = await pythonDiagnosticsFigures();
  const figures = {
    files: fileCount,
    budget_tokens: budget,
    load_average_at_start: Number(load.toFixed(2)),
    page_cache:
      droppedForAnchor && droppedForOurs
        ? "cold_page_cache: dropped before each side; cold_ms: warm page cache, empty tag cache"
        : "could not drop the page cache (needs root): the cold_page_cache figures are warm ones",
    ours: {
      cold_page_cache_ms: Math.round(coldDisk.ms),
      cold_ms: Math.round(cold.ms),
      cold_parsed: cold.parsed,
      after_one_change_ms: Math.round(changed.ms),
      after_one_change_read: changed.read,
      after_one_change_parsed: changed.parsed,
      map_files: cold.mapFiles,
    },
    anchor: { cold_page_cache_ms: Math.round(anchorColdDisk.ms), cold_ms: Math.round(anchorCold.ms), after_one_change_ms: Math.round(anchorChanged.ms), files: anchorCold.files },
    ratios: {
      cold_page_cache_ours_over_anchor: Number((coldDisk.ms / anchorColdDisk.ms).toFixed(3)),
      cold_ours_over_anchor: Number((cold.ms / anchorCold.ms).toFixed(3)),
      after_change_ours_over_anchor: Number((changed.ms / anchorChanged.ms).toFixed(3)),
    },
    diagnostics,
    python_diagnostics: pythonDiagnostics,
  };
  console.log(JSON.stringify(figures, null, 2));
  console.log(`wrote ${writeBenchResult("codemap", figures)}`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
