import { open } from "node:fs/promises";
import {
  packageScriptTexts,
  packageScriptsContext,
  scriptFreeAlternative,
  scriptsDigestInput,
  workspaceScriptOf,
  type CommandAlternative,
  type WorkspaceScript,
  type WorkspaceScriptText,
} from "@aide/contracts";
import { sha256Hex } from "../files/digest.js";
import { makeIncludes, makeRules } from "./make-rules.js";
import type { ToolContext } from "../framework/tool-types.js";

/** One piece of workspace-defined code a command will run, as the approval shows it. */
export type ScriptText = WorkspaceScriptText;

const maxChars = 4000;
const cap = (text: string) => (text.length <= maxChars ? text : `${text.slice(0, maxChars)}\n[… ${text.length - maxChars} more characters in the file]`);

/** A workspace file's text (at most 256 KiB), through the jail; undefined when absent or unreadable. */
async function readWorkspaceFile(context: ToolContext, relative: string): Promise<string | undefined> {
  try {
    const target = await context.workspace.resolve(relative);
    if (target.stats === null || !target.stats.isFile()) return undefined;
    const handle = await open(target.absolute, "r");
    try {
      const buffer = Buffer.alloc(Math.min(target.stats.size, 256 * 1024));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      return buffer.subarray(0, bytesRead).toString("utf8");
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}

const join = (cwd: string, name: string) => (cwd === "." || cwd === "" ? name : `${cwd}/${name}`);

/** The scripts a command runs, whole, and what else their digest covers (`scriptsDigestInput`'s context). */
interface WholeScripts {
  scripts: ScriptText[];
  context: string;
}

async function packageScripts(context: ToolContext, cwd: string, script: WorkspaceScript): Promise<WholeScripts> {
  const source = join(cwd, "package.json");
  const text = await readWorkspaceFile(context, source);
  // A script may call another (`npm run lint && …`): any change to the scripts asks again.
  return { scripts: packageScriptTexts(source, text, script), context: packageScriptsContext(text) };
}

async function makeTargets(context: ToolContext, cwd: string, script: WorkspaceScript): Promise<WholeScripts> {
  for (const file of ["GNUmakefile", "makefile", "Makefile"]) {
    const source = join(cwd, file);
    const text = await readWorkspaceFile(context, source);
    if (text === undefined) continue;
    const targets = script.scripts[0] === "(default target)" ? [undefined] : script.scripts;
    const included = await Promise.all(makeIncludes(text).map(async (name) => `${name}\n${(await readWorkspaceFile(context, join(cwd, name))) ?? "(absent)"}`));
    // Any change to the makefile or a file it includes asks again, not only one to the rules shown.
    return { scripts: makeRules(text, targets).map((rule) => ({ source, ...rule })), context: [text, ...included].join("\n--- include ") };
  }
  return { scripts: [{ source: join(cwd, "Makefile"), name: script.scripts.join(" "), text: "(no makefile here)" }], context: "" };
}

/** composer.json scripts: a string or a list of commands; `@other` runs another, so the digest covers all of them. */
async function composerScripts(context: ToolContext, cwd: string, script: WorkspaceScript): Promise<WholeScripts> {
  const source = join(cwd, "composer.json");
  const text = await readWorkspaceFile(context, source);
  if (text === undefined) return { scripts: [{ source, name: script.scripts.join(", "), text: "(no composer.json here)" }], context: "" };
  let scripts: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(text.replace(/^\uFEFF/, "")) as { scripts?: unknown };
    if (parsed.scripts && typeof parsed.scripts === "object") scripts = parsed.scripts as Record<string, unknown>;
  } catch {
    return { scripts: [{ source, name: script.scripts.join(", "), text: "(composer.json is not valid JSON)" }], context: text };
  }
  const found = script.scripts.flatMap((name) => {
    const value = scripts[name];
    if (typeof value === "string") return [{ source, name, text: value }];
    if (Array.isArray(value)) return [{ source, name, text: value.map(String).join("\n") }];
    return [];
  });
  const shown = found.length > 0 ? found : [{ source, name: script.scripts.join(", "), text: "(none of these is defined in composer.json; plugins' own handlers may still run)" }];
  return { scripts: shown, context: JSON.stringify(scripts) };
}

/** `poetry run NAME`: its `[tool.poetry.scripts]` or `[project.scripts]` line; the digest covers the whole pyproject.toml. */
async function poetryScripts(context: ToolContext, cwd: string, script: WorkspaceScript): Promise<WholeScripts> {
  const source = join(cwd, "pyproject.toml");
  const text = await readWorkspaceFile(context, source);
  if (text === undefined) return { scripts: [{ source, name: script.scripts[0], text: "(no pyproject.toml here)" }], context: "" };
  const name = script.scripts[0];
  const entry = tomlTableEntry(text, ["tool.poetry.scripts", "project.scripts"], name);
  const shown =
    entry ??
    (name.startsWith("(") ? "(builds and installs the project: its build backend and build script run)" : `(not a script of pyproject.toml: runs the program ${name} from the project's environment)`);
  return { scripts: [{ source, name, text: shown }], context: text };
}

/** The `key = value` line of `key` in the first of `tables` that has it (a plain line scan: enough to show it). */
function tomlTableEntry(toml: string, tables: string[], key: string): string | undefined {
  let table = "";
  for (const line of toml.split("\n")) {
    const header = /^\s*\[([^\]]+)\]\s*(#.*)?$/.exec(line);
    if (header) {
      table = header[1].trim();
      continue;
    }
    const entry = /^\s*("?)([A-Za-z0-9_.-]+)\1\s*=/.exec(line);
    if (entry && tables.includes(table) && entry[2] === key) return line.trim();
  }
  return undefined;
}

async function files(context: ToolContext, cwd: string, names: string[]): Promise<WholeScripts> {
  const shown: ScriptText[] = [];
  for (const name of names) {
    const source = join(cwd, name);
    const text = await readWorkspaceFile(context, source);
    if (text !== undefined) shown.push({ source, name, text });
  }
  return { scripts: shown.length > 0 ? shown : [{ source: join(cwd, names[0]), name: names.join(", "), text: "(not present here)" }], context: "" };
}

/** The scripts a command runs, cut for the screen, and the digest of their whole texts (`scripts_digest`). */
export interface CommandScripts {
  scripts: ScriptText[];
  digest?: string;
  /** A package install's `--ignore-scripts` form (`scriptFreeAlternative`), offered beside it. */
  alternative?: CommandAlternative;
}

/**
 * The text of the workspace-defined code a command runs by design (see `workspaceScriptOf`): the
 * package.json scripts with their pre/post hooks, the make target's recipe, setup.py, the build
 * backend, build.rs. Shown in the approval, because no override can make such a command safe; the
 * digest binds an allow rule to exactly these texts.
 */
export async function commandScripts(context: ToolContext, command: string, cwd: string): Promise<CommandScripts> {
  const whole = await wholeScripts(context, command, cwd);
  if (whole === undefined || whole.scripts.length === 0) return { scripts: [] };
  const alternative = scriptFreeAlternative(command, { yarnBerry: await isYarnBerry(context, cwd) });
  return {
    scripts: whole.scripts.map((script) => ({ ...script, text: cap(script.text) })),
    digest: sha256Hex(scriptsDigestInput(whole.scripts, whole.context)),
    ...(alternative !== undefined ? { alternative } : {}),
  };
}

/**
 * Yarn 2 or later runs here (a `.yarnrc.yml`, or `packageManager: yarn@2+` in package.json, in
 * the command's folder or the workspace root): it has no `--ignore-scripts`, so nothing is offered.
 */
async function isYarnBerry(context: ToolContext, cwd: string): Promise<boolean> {
  for (const folder of [...new Set([cwd, "."])]) {
    if ((await readWorkspaceFile(context, join(folder, ".yarnrc.yml"))) !== undefined) return true;
    const manifest = await readWorkspaceFile(context, join(folder, "package.json"));
    if (manifest !== undefined && /"packageManager"\s*:\s*"yarn@(?:[2-9]|\d{2,})/.test(manifest)) return true;
  }
  return false;
}

async function wholeScripts(context: ToolContext, command: string, cwd: string): Promise<WholeScripts | undefined> {
  const script = workspaceScriptOf(command);
  if (script === undefined) return undefined;
  switch (script.runner) {
    case "npm":
    case "pnpm":
    case "yarn":
      return packageScripts(context, cwd, script);
    case "make":
      return makeTargets(context, cwd, script);
    case "python":
      return files(context, cwd, [script.scripts[0].replace(/^\.\//, "")]);
    case "pip":
      return files(context, cwd, ["pyproject.toml", "setup.py"]);
    case "cargo":
      return files(context, cwd, ["build.rs"]);
    case "composer":
      return composerScripts(context, cwd, script);
    case "poetry":
      return poetryScripts(context, cwd, script);
    default: {
      const never: never = script.runner;
      throw new Error(`unknown runner ${String(never)}`);
    }
  }
}
