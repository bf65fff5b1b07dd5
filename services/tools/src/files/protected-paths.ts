/** Paths whose change needs an extra, named confirmation: automation and verification surfaces. */
const rules: Array<{ test: (path: string, base: string) => boolean; reason: string }> = [
  { test: (p) => p === ".aide" || p.startsWith(".aide/"), reason: "the agent's own state and checkpoints" },
  { test: (p) => p.startsWith(".git/hooks/") || p.startsWith(".husky/") || p.includes("/.husky/"), reason: "git hook: runs code on every commit" },
  { test: (p) => p === ".git" || p.startsWith(".git/") || p.includes("/.git/"), reason: "git internals (config can run programs)" },
  { test: (p) => p.startsWith(".github/workflows/") || p.startsWith(".github/actions/"), reason: "CI workflow: runs with repository secrets" },
  {
    test: (p, b) => [".gitlab-ci.yml", ".travis.yml", "azure-pipelines.yml", "Jenkinsfile", "bitbucket-pipelines.yml", ".drone.yml", "appveyor.yml"].includes(b) || p.startsWith(".circleci/") || p.startsWith(".buildkite/"),
    reason: "CI configuration: runs on the build servers",
  },
  {
    test: (_p, b) => ["package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lockb", "Cargo.lock", "poetry.lock", "Pipfile.lock", "Gemfile.lock", "composer.lock", "go.sum", "uv.lock"].includes(b),
    reason: "lock file: pins what gets installed",
  },
  {
    test: (_p, b) => [".bashrc", ".bash_profile", ".profile", ".zshrc", ".zprofile", ".zshenv", ".envrc", ".bash_logout", ".inputrc", "config.fish"].includes(b),
    reason: "shell startup file: runs in every shell",
  },
  { test: (p) => p.startsWith(".vscode/") && /(tasks|launch|settings)\.json$/.test(p), reason: "editor task/launch file: the editor can run it" },
  { test: (p) => p.startsWith(".idea/") || p.endsWith(".code-workspace"), reason: "editor configuration: can run tasks" },
  { test: (_p, b) => ["Makefile", "makefile", "GNUmakefile", "setup.py", "conftest.py", "pytest.ini", "tox.ini", "noxfile.py", ".pre-commit-config.yaml", ".npmrc", ".yarnrc", ".yarnrc.yml"].includes(b), reason: "build/test configuration: runs code when building or testing" },
  { test: (_p, b) => /^(vitest|jest|vite|webpack|rollup|babel|eslint)\.config\.[cm]?[jt]s$/.test(b), reason: "tool configuration that executes code" },
  { test: (_p, b) => b === "hooks.json" || b === "tasks.json", reason: "hook/task definitions" },
  { test: (p) => /(^|\/)(__snapshots__|snapshots)\//.test(p) || /\.snap$/.test(p), reason: "test snapshot: editing it can hide a failing test" },
];

export interface ProtectedFlag {
  path: string;
  reason: string;
}

export function protectedReason(relativePath: string): string | undefined {
  const base = relativePath.split("/").pop() ?? relativePath;
  return rules.find((rule) => rule.test(relativePath, base))?.reason;
}

export function protectedFlags(paths: readonly string[]): ProtectedFlag[] {
  return paths.flatMap((path) => {
    const reason = protectedReason(path);
    return reason === undefined ? [] : [{ path, reason }];
  });
}

function scriptsOf(data: Buffer | null): string | undefined {
  if (data === null) return "{}";
  try {
    const parsed = JSON.parse(data.toString("utf8").replace(/^\uFEFF/, "")) as { scripts?: unknown };
    return JSON.stringify(parsed.scripts ?? {});
  } catch {
    return undefined;
  }
}

/**
 * Flags for file changes: the path rules, plus package.json when its `scripts` (which npm runs on
 * install, test and build) change or cannot be compared.
 */
export function protectedFlagsForChanges(changes: ReadonlyArray<{ path: string; before: Buffer | null; after: Buffer }>): ProtectedFlag[] {
  const flags = protectedFlags(changes.map((c) => c.path));
  for (const change of changes) {
    if ((change.path.split("/").pop() ?? "") !== "package.json") continue;
    const before = scriptsOf(change.before);
    const after = scriptsOf(change.after);
    if (before === undefined || after === undefined || before !== after) {
      flags.push({ path: change.path, reason: "package.json scripts change: npm runs them on install, test and build" });
    }
  }
  return flags;
}
