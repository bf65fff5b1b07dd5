import type { ProtectedKind } from "@aide/contracts";

/**
 * The one table of protected paths: surfaces that run code, steer an agent or decide what gets
 * verified. A change to any of them always asks a person (the orchestrator's auto-approve rules
 * never cover it) and needs a named confirmation. Globs are gitignore-style over the
 * workspace-relative path (`**\/` = at any depth), matched case-insensitively because a
 * case-insensitive file system (macOS, Windows) opens `.GIT/hooks` as `.git/hooks`. The first row
 * that matches gives the reason. The services/tools README lists this table; keep both in step.
 */
export interface ProtectedPattern {
  kind: ProtectedKind;
  globs: readonly string[];
  reason: string;
}

/** One row per agent: its rules and instruction files, with the agent named in the reason. */
function agentInstructionRows(rows: ReadonlyArray<readonly [readonly string[], string]>): ProtectedPattern[] {
  return rows.map(([globs, what]) => ({ kind: "agent_instructions", globs, reason: `agent instruction file: ${what}; a coding agent reads it as instructions` }));
}

export const protectedPatterns: readonly ProtectedPattern[] = [
  { kind: "aide", globs: ["**/.aide", "**/.aide/**"], reason: "the agent's own state, checkpoints and rules: aide reads its rules as instructions" },
  ...agentInstructionRows([
    [["**/AGENTS.md", "**/AGENT.md"], "AGENTS.md, the instruction file many coding agents follow (this one included)"],
    [["**/CLAUDE.md", "**/CLAUDE.local.md"], "Claude Code's instruction file"],
    [["**/GEMINI.md"], "Gemini CLI's instruction file"],
    [["**/.cursorrules", "**/.cursor/rules", "**/.cursor/rules/**"], "Cursor's rules"],
    [["**/.clinerules", "**/.clinerules/**", "**/.clinerules*", "**/.clinerules*/**"], "Cline's rules, a file or a folder"],
    [["**/.windsurfrules", "**/.windsurf/rules", "**/.windsurf/rules/**"], "Windsurf's rules"],
    [["**/.github/copilot-instructions.md", "**/.github/instructions/**", "**/.github/prompts/**"], "GitHub Copilot's instructions"],
    [["**/.roo", "**/.roo/**", "**/.roomodes", "**/.rooignore"], "Roo Code's rules and modes"],
    [["**/.kilocode", "**/.kilocode/**", "**/.kilocodemodes", "**/.kilocodeignore"], "Kilo Code's rules and modes"],
    [["**/.continue", "**/.continue/**", "**/.continuerules"], "Continue's rules and configuration, which can also start MCP servers"],
    [["**/.aider*", "**/.aider*/**"], "aider's configuration and conventions, which also name the lint and test commands it runs"],
    [["**/opencode.json", "**/opencode.jsonc", "**/.opencode", "**/.opencode/**"], "opencode's configuration: instructions, permissions and MCP servers"],
    [["**/.codex", "**/.codex/**"], "Codex's instructions and configuration"],
    [["**/.goosehints", "**/.junie/**", "**/.rules"], "goose, Junie or Zed hints and rules"],
  ]),
  {
    kind: "tool_config",
    globs: [
      "**/.mcp.json",
      "**/.claude",
      "**/.claude/**",
      "**/.cursor/**",
      "**/.windsurf/**",
      "**/.gemini/**",
      "**/.codex/**",
      "**/.continue/**",
      "**/.vscode/**",
      "**/.idea/**",
      "**/*.code-workspace",
    ],
    reason: "agent or editor configuration: can start programs (MCP servers, tasks, hooks) or change what is allowed",
  },
  { kind: "git_internals", globs: ["**/.git/hooks/**", "**/.husky/**", "**/.githooks/**"], reason: "git hook: runs code on every commit" },
  { kind: "git_internals", globs: ["**/.git", "**/.git/**"], reason: "git internals (config can run programs)" },
  {
    kind: "tool_config",
    globs: ["**/.gitconfig", "**/.gitmodules", "**/.gitattributes", "**/.ripgreprc", "**/.npmrc", "**/.yarnrc", "**/.yarnrc.yml", "**/.envrc"],
    reason: "tool configuration: git, ripgrep, npm or direnv read it and it can run programs or change their policy",
  },
  { kind: "ci", globs: [".github/workflows/**", ".github/actions/**"], reason: "CI workflow: runs with repository secrets" },
  {
    kind: "ci",
    globs: ["**/.gitlab-ci.yml", "**/.travis.yml", "**/azure-pipelines.yml", "**/Jenkinsfile", "**/bitbucket-pipelines.yml", "**/.drone.yml", "**/appveyor.yml", ".circleci/**", ".buildkite/**"],
    reason: "CI configuration: runs on the build servers",
  },
  {
    kind: "lockfile",
    globs: [
      "**/package-lock.json",
      "**/npm-shrinkwrap.json",
      "**/yarn.lock",
      "**/pnpm-lock.yaml",
      "**/bun.lockb",
      "**/Cargo.lock",
      "**/poetry.lock",
      "**/Pipfile.lock",
      "**/Gemfile.lock",
      "**/composer.lock",
      "**/go.sum",
      "**/uv.lock",
    ],
    reason: "lock file: pins what gets installed",
  },
  {
    kind: "shell_rc",
    globs: ["**/.bashrc", "**/.bash_profile", "**/.profile", "**/.zshrc", "**/.zprofile", "**/.zshenv", "**/.bash_logout", "**/.inputrc", "**/config.fish"],
    reason: "shell startup file: runs in every shell",
  },
  {
    kind: "build_config",
    globs: ["**/Makefile", "**/GNUmakefile", "**/setup.py", "**/conftest.py", "**/pytest.ini", "**/tox.ini", "**/noxfile.py", "**/.pre-commit-config.yaml"],
    reason: "build/test configuration: runs code when building or testing",
  },
  { kind: "build_config", globs: ["**/{vitest,jest,vite,webpack,rollup,babel,eslint}.config.{js,cjs,mjs,ts,cts,mts}"], reason: "tool configuration that executes code" },
  { kind: "build_config", globs: ["**/hooks.json", "**/tasks.json"], reason: "hook/task definitions" },
  { kind: "test_snapshot", globs: ["**/__snapshots__/**", "**/snapshots/**", "**/*.snap"], reason: "test snapshot: editing it can hide a failing test" },
];

/** The reason for a path inside a repository's git directory that is not called `.git` (`gitdir: .gitstore`). */
export const gitDirectoryReasons = {
  hooks: "git hook of a repository in the workspace: runs code on every commit",
  other: "git internals of a repository in the workspace (config can run programs)",
} as const;

/** The reason for package.json when its `scripts` change (npm runs them on install, test and build). */
export const packageScriptsReason = "package.json scripts change: npm runs them on install, test and build";
