/**
 * Commands that run code the workspace itself defines, by design: `npm test` runs the package's
 * `scripts.test`, `make` a Makefile recipe, `python setup.py` and `pip install .` the project's
 * build, `cargo build` its build.rs. No environment override can neutralize that, so the approval
 * policy (orchestrator) lets a prefix rule cover such a command only when the rule names the exact
 * script (`words` leading words), and the tools preview shows the script text (`scripts`). Pure:
 * one definition for both sides of the bus.
 */
export interface WorkspaceScript {
  runner: "npm" | "pnpm" | "yarn" | "make" | "python" | "pip" | "cargo" | "composer" | "poetry";
  /** What runs: script names (npm/pnpm/yarn, with their pre/post hooks), make targets, or files. */
  scripts: string[];
  /** How many leading words of the command a prefix rule must match to cover it. */
  words: number;
}

const lifecycle = ["preinstall", "install", "postinstall", "preprepare", "prepare", "postprepare"];
const withHooks = (name: string) => [`pre${name}`, name, `post${name}`];
const npmInstall = new Set([
  "install",
  "i",
  "in",
  "ins",
  "inst",
  "insta",
  "instal",
  "isnt",
  "isnta",
  "isntal",
  "isntall",
  "ci",
  "clean-install",
  "install-clean",
  "add",
  "rebuild",
  "rb",
  "install-test",
  "it",
  "install-ci-test",
  "cit",
]);
const npmRun = new Set(["run", "run-script", "rum", "urn"]);
const shortcuts: Record<string, string> = { test: "test", t: "test", tst: "test", start: "start", stop: "stop", restart: "restart" };
/** yarn/pnpm subcommands that are not package scripts (a bare unknown word runs the script of that name). */
const packageManagerBuiltins = new Set([
  "add",
  "audit",
  "autoclean",
  "bin",
  "cache",
  "check",
  "config",
  "create",
  "dedupe",
  "deploy",
  "dlx",
  "doctor",
  "env",
  "exec",
  "fetch",
  "generate-lock-entry",
  "global",
  "help",
  "import",
  "info",
  "init",
  "licenses",
  "link",
  "list",
  "login",
  "logout",
  "ls",
  "outdated",
  "owner",
  "pack",
  "patch",
  "patch-commit",
  "policies",
  "prune",
  "publish",
  "rebuild",
  "remove",
  "rm",
  "root",
  "server",
  "set",
  "setup",
  "store",
  "tag",
  "team",
  "unlink",
  "up",
  "update",
  "upgrade",
  "upgrade-interactive",
  "version",
  "versions",
  "why",
  "workspace",
  "workspaces",
  "install",
  "i",
]);
/** cargo subcommands that compile or run nothing of the workspace; any other (a build, an alias, a `cargo-<name>` plugin) may. */
const cargoInert = new Set([
  "metadata",
  "tree",
  "version",
  "--version",
  "-V",
  "help",
  "--help",
  "-h",
  "search",
  "locate-project",
  "pkgid",
  "verify-project",
  "read-manifest",
  "fetch",
  "generate-lockfile",
  "update",
  "vendor",
  "fmt",
  "login",
  "logout",
  "owner",
  "yank",
  "list",
  "--list",
  "info",
  "config",
  "new",
  "init",
  "add",
  "remove",
  "clean",
]);

/** Install subcommands whose lifecycle scripts `--ignore-scripts` turns off (not install-test: its test still runs; not rebuild: running them is its purpose). */
const installsOnly: Record<"npm" | "pnpm" | "yarn", ReadonlySet<string>> = {
  npm: new Set([...npmInstall].filter((sub) => !["rebuild", "rb", "install-test", "it", "install-ci-test", "cit"].includes(sub))),
  pnpm: new Set(["install", "i", "add"]),
  yarn: new Set(["install", "add"]),
};

function isInstall(runner: "npm" | "pnpm" | "yarn", sub: string | undefined): boolean {
  return sub === undefined ? runner === "yarn" : installsOnly[runner].has(sub);
}

/**
 * True when an install carries `--ignore-scripts` in force: the word itself (or `=true`), not
 * followed by a value turning it off (`--ignore-scripts false`), and no other spelling of the
 * option (`--no-ignore-scripts`, `--ignore-scripts=false`) anywhere on the line. Yarn 2+ refuses the
 * option and installs nothing, so for every runner no workspace script runs.
 */
function ignoresScripts(words: string[]): boolean {
  const at = words.findIndex((word) => word === "--ignore-scripts" || word === "--ignore-scripts=true");
  // After `--` it is an operand, not the option.
  const operands = words.indexOf("--");
  if (at < 0 || (operands >= 0 && operands < at) || /^(false|true|0|1)$/i.test(words[at + 1] ?? "")) return false;
  return words.every((word, index) => index === at || !/^--(no-)?ignore-scripts(=|$)/.test(word));
}

function packageScript(runner: "npm" | "pnpm" | "yarn", words: string[]): WorkspaceScript | undefined {
  const sub = words[1];
  if (sub !== undefined && !sub.startsWith("-") && isInstall(runner, sub) && ignoresScripts(words)) return undefined;
  if (sub === undefined) return runner === "yarn" ? { runner, scripts: lifecycle, words: 1 } : undefined;
  // Options before the subcommand (`npm --prefix x test`): only a rule naming the whole command covers it.
  if (sub.startsWith("-")) return { runner, scripts: ["(unknown: options before the subcommand)"], words: words.length };
  if (shortcuts[sub] !== undefined) return { runner, scripts: withHooks(shortcuts[sub]), words: 2 };
  if (npmInstall.has(sub)) return { runner, scripts: lifecycle, words: 2 };
  if (npmRun.has(sub)) {
    const name = words.slice(2).find((word) => !word.startsWith("-"));
    if (name === undefined) return undefined;
    // `npm run --silent build`: with options before the name, only the whole command names it.
    return { runner, scripts: withHooks(name), words: words[2] === name ? 3 : words.length };
  }
  if (runner !== "npm" && !packageManagerBuiltins.has(sub)) return { runner, scripts: withHooks(sub), words: 2 };
  return undefined;
}

/** composer subcommands that are not scripts (a bare unknown word runs the composer.json script of that name). */
const composerBuiltins = new Set([
  "about",
  "archive",
  "audit",
  "browse",
  "home",
  "bump",
  "check-platform-reqs",
  "clear-cache",
  "clearcache",
  "cc",
  "completion",
  "config",
  "depends",
  "why",
  "diagnose",
  "exec",
  "fund",
  "global",
  "help",
  "init",
  "licenses",
  "list",
  "outdated",
  "prohibits",
  "why-not",
  "search",
  "self-update",
  "selfupdate",
  "show",
  "info",
  "status",
  "suggests",
  "validate",
]);
/** composer subcommands that fire the install/update events, whose scripts composer.json defines. */
const composerInstall = new Set(["install", "i", "update", "u", "upgrade", "require", "r", "remove", "rm", "reinstall", "create-project", "dump-autoload", "dumpautoload"]);
const composerEvents = ["pre-install-cmd", "post-install-cmd", "pre-update-cmd", "post-update-cmd", "pre-autoload-dump", "post-autoload-dump", "post-root-package-install", "post-create-project-cmd"];

function composerScript(words: string[]): WorkspaceScript | undefined {
  const sub = words[1];
  if (sub === undefined) return undefined;
  if (sub.startsWith("-")) return { runner: "composer", scripts: ["(unknown: options before the subcommand)"], words: words.length };
  if (composerInstall.has(sub)) return { runner: "composer", scripts: composerEvents, words: 2 };
  if (sub === "run-script" || sub === "run") {
    const name = words.slice(2).find((word) => !word.startsWith("-"));
    return name === undefined ? undefined : { runner: "composer", scripts: [name], words: words[2] === name ? 3 : words.length };
  }
  return composerBuiltins.has(sub) ? undefined : { runner: "composer", scripts: [sub], words: 2 };
}

/** `poetry run NAME`: a `[tool.poetry.scripts]` entry point of the project, or a program of its environment. */
function poetryScript(words: string[]): WorkspaceScript | undefined {
  if (words[1] !== "run") return words[1] === "install" ? { runner: "poetry", scripts: ["(the project's build)"], words: 2 } : undefined;
  const name = words[2];
  if (name === undefined || name.startsWith("-")) return { runner: "poetry", scripts: ["(unknown: options before the program)"], words: words.length };
  return { runner: "poetry", scripts: [name], words: 3 };
}

function pythonScript(words: string[]): WorkspaceScript | undefined {
  const setup = words.findIndex((word) => /(^|\/)setup\.py$/.test(word));
  if (setup >= 1) return { runner: "python", scripts: [words[setup]], words: words.length };
  const pip = words[1] === "-m" && /^pip3?$/.test(words[2] ?? "") ? 3 : 0;
  if (pip > 0) return pipScript(words.slice(pip - 1), words.length);
  return undefined;
}

/** `pip install .`, `-e .`, `-r requirements.txt`, a local path: the project's build runs. */
function pipScript(words: string[], total: number): WorkspaceScript | undefined {
  if (words[1] !== "install") return undefined;
  const isLocal = (word: string) => word === "." || word === ".." || /^(-e|--editable|-r|--requirement|-c|--constraint)(=|$)/.test(word) || (word.includes("/") && !word.includes("://"));
  const local = words.slice(2).some(isLocal);
  return local ? { runner: "pip", scripts: ["setup.py / pyproject.toml build backend"], words: total } : undefined;
}

/** What workspace-defined code a command line runs, if any (see WorkspaceScript). */
export function workspaceScriptOf(command: string): WorkspaceScript | undefined {
  const words = command
    .trim()
    .split(/\s+/)
    .filter((word) => word !== "");
  const program = (words[0] ?? "").split("/").pop() ?? "";
  switch (program) {
    case "npm":
    case "pnpm":
    case "yarn":
      return packageScript(program, words);
    case "make":
    case "gmake": {
      const targets = words.slice(1).filter((word) => !word.startsWith("-") && !word.includes("="));
      return { runner: "make", scripts: targets.length > 0 ? targets : ["(default target)"], words: words.length };
    }
    case "pip":
    case "pip3":
      return pipScript(words, words.length);
    case "composer":
      return composerScript(words);
    case "poetry":
      return poetryScript(words);
    case "cargo": {
      const cargoScripts = ["build.rs", "(and the workspace's proc-macro crates)"];
      // `cargo +nightly build`, `cargo --locked build`: only the whole command names it.
      if (words[1] !== undefined && /^[-+]/.test(words[1])) return { runner: "cargo", scripts: cargoScripts, words: words.length };
      return words[1] !== undefined && !cargoInert.has(words[1]) ? { runner: "cargo", scripts: cargoScripts, words: 2 } : undefined;
    }
    default:
      return /^python(\d(\.\d+)?)?$/.test(program) ? pythonScript(words) : undefined;
  }
}

/**
 * What an approval of a package install offers besides the command as proposed: the same install
 * with the project's and the packages' lifecycle scripts turned off (`npm ci --ignore-scripts`),
 * and the allow rule that covers that form (it runs no workspace code, so no digest). The network
 * consent the install needs is asked for as before.
 */
export interface ScriptFreeAlternative {
  id: "ignore_scripts";
  command: string;
  rule: string;
  note: string;
}

/**
 * The `--ignore-scripts` form of an npm, pnpm or Yarn 1 install (`npm install`, `npm ci`,
 * `pnpm add x`, `yarn`), or undefined: not such an install, already without scripts, a line with
 * shell operators or `--` (the flag would land elsewhere), options before the subcommand, or
 * `yarnBerry` (Yarn 2+ has no `--ignore-scripts`; its `--mode=skip-build` is not offered, since
 * under Yarn 1 the same words would run the scripts).
 */
export function scriptFreeAlternative(command: string, options: { yarnBerry?: boolean } = {}): ScriptFreeAlternative | undefined {
  // Only plain printable words: what the person reads is exactly what runs.
  if (/[;&|<>`$()\\'"]|[^\x20-\x7e]/.test(command)) return undefined;
  const words = command
    .trim()
    .split(/\s+/)
    .filter((word) => word !== "");
  const program = words[0];
  if (program !== "npm" && program !== "pnpm" && program !== "yarn") return undefined;
  if (program === "yarn" && options.yarnBerry === true) return undefined;
  const sub = words[1];
  if ((sub !== undefined && sub.startsWith("-")) || !isInstall(program, sub) || words.includes("--")) return undefined;
  if (words.some((word) => /^--(no-)?ignore-scripts(=|$)/.test(word))) return undefined;
  const alternative = [...words, "--ignore-scripts"].join(" ");
  if (alternative.length > 200) return undefined;
  return {
    id: "ignore_scripts",
    command: alternative,
    rule: alternative,
    note: "installs the packages without running any lifecycle script (the project's preinstall/install/postinstall/prepare and every package's own); packages that need a build step may not work until it runs",
  };
}

/** One piece of workspace-defined code a command runs, as the approval shows it. */
export interface WorkspaceScriptText {
  /** Workspace-relative file it comes from. */
  source: string;
  /** Script name, make target, or file. */
  name: string;
  text: string;
}

/**
 * The package.json scripts a package-manager command runs (`workspaceScriptOf`'s names with their
 * pre/post hooks), from the file's text (undefined: no package.json). Pure, so the tools preview
 * and a client that pre-approves a script (the eval runner) read the same texts.
 */
export function packageScriptTexts(source: string, packageJson: string | undefined, script: WorkspaceScript): WorkspaceScriptText[] {
  if (packageJson === undefined) return [{ source, name: script.scripts.join(", "), text: "(no package.json here)" }];
  let scripts: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(packageJson.replace(/^\uFEFF/, "")) as { scripts?: unknown };
    if (parsed.scripts && typeof parsed.scripts === "object") scripts = parsed.scripts as Record<string, unknown>;
  } catch {
    return [{ source, name: script.scripts.join(", "), text: "(package.json is not valid JSON)" }];
  }
  const found = script.scripts.filter((name) => typeof scripts[name] === "string").map((name) => ({ source, name, text: String(scripts[name]) }));
  if (found.length > 0) return found;
  return [{ source, name: script.scripts.join(", "), text: "(none of these is defined in package.json; dependencies' own scripts may still run)" }];
}

/**
 * What else a package-script digest covers: the whole `scripts` object, because a script may run
 * another (`"test": "npm run lint && node t.js"`), so any change to the scripts asks again.
 */
export function packageScriptsContext(packageJson: string | undefined): string {
  if (packageJson === undefined) return "(no package.json)";
  try {
    const parsed = JSON.parse(packageJson.replace(/^\uFEFF/, "")) as { scripts?: unknown };
    return JSON.stringify(parsed.scripts ?? null);
  } catch {
    return "(not valid JSON)";
  }
}

/**
 * What a script digest is taken over: the scripts a command runs, each whole (not cut for the
 * screen), in order, and the context they run in (`packageScriptsContext`, the makefile with its
 * includes). `scripts_digest` is the sha256 (hex) of this string's UTF-8 bytes.
 */
export function scriptsDigestInput(scripts: readonly WorkspaceScriptText[], context = ""): string {
  return JSON.stringify({ scripts: scripts.map((script) => [script.source, script.name, script.text]), context });
}

const ruleDigest = /^sha256:([0-9a-f]{64})$/;

/**
 * An allow rule (`auto_approve.commands` entry): leading command words, and for a command that
 * runs workspace-defined code, the digest of the script text the person saw as a last word
 * `sha256:<64 hex>` (`npm test sha256:9f86…`). A script runner's command is auto-approved only by
 * a rule that names its script and carries the digest of the scripts it runs now.
 */
export interface CommandRule {
  words: string[];
  scriptsDigest?: string;
}

export function parseCommandRule(rule: string): CommandRule {
  const words = rule
    .trim()
    .split(/\s+/)
    .filter((word) => word !== "");
  const digest = ruleDigest.exec(words[words.length - 1] ?? "");
  return digest === null ? { words } : { words: words.slice(0, -1), scriptsDigest: digest[1] };
}

/** The rule that allows `command` while its scripts stay those with `scriptsDigest`. */
export function commandRuleWithDigest(command: string, scriptsDigest: string): string {
  return `${command.trim().split(/\s+/).join(" ")} sha256:${scriptsDigest}`;
}
