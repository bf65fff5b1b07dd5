/**
 * The project's test command, found from the files at the workspace root (the auto_test and
 * prefix_failing_output strategies). The first rule that matches wins, in this order:
 *
 * | file at the root | command |
 * | --- | --- |
 * | `package.json` with a `scripts.test` (not npm's placeholder) | `npm test` |
 * | `pytest.ini`, `conftest.py`, `tox.ini`, `setup.cfg` or `pyproject.toml` naming pytest, or a `tests/` or `test/` folder beside a `*.py` file | `python3 -m pytest -q` |
 * | `go.mod` | `go test ./...` |
 * | `Cargo.toml` | `cargo test --offline` |
 * | `pom.xml` | `mvn -o -q test` |
 * | `gradlew` | `./gradlew test --offline` |
 * | `build.gradle` or `build.gradle.kts` | `gradle test --offline` |
 *
 * The offline flags are there because commands run without network (a dependency not cached yet
 * fails, and says so). Nothing matches: undefined, and the strategy says it found no test command.
 */
export interface RootFacts {
  /** The names at the workspace root (folders end with `/`, as list_dir shows them). */
  entries: string[];
  /** Text of the root files the rules look into, when present. */
  files: Partial<Record<"package.json" | "pyproject.toml" | "setup.cfg" | "tox.ini", string>>;
}

export interface DetectedTestCommand {
  command: string;
  /** The file that decided it, for the person and the events. */
  because: string;
}

/** The root files `detectTestCommand` reads when they are listed. */
export const inspectedRootFiles = ["package.json", "pyproject.toml", "setup.cfg", "tox.ini"] as const;

const npmPlaceholder = /no test specified/i;

function npmTest(text: string | undefined): boolean {
  if (text === undefined) return false;
  try {
    const scripts = (JSON.parse(text) as { scripts?: Record<string, unknown> }).scripts;
    const test = scripts?.["test"];
    return typeof test === "string" && test.trim() !== "" && !npmPlaceholder.test(test);
  } catch {
    return false;
  }
}

function pytestProject(facts: RootFacts, has: (name: string) => boolean): string | undefined {
  if (has("pytest.ini")) return "pytest.ini";
  if (has("conftest.py")) return "conftest.py";
  for (const name of ["pyproject.toml", "setup.cfg", "tox.ini"] as const) {
    if (/pytest/.test(facts.files[name] ?? "")) return name;
  }
  const python = facts.entries.some((entry) => entry.endsWith(".py"));
  if (python && (has("tests/") || has("test/"))) return has("tests/") ? "tests/" : "test/";
  return undefined;
}

export function detectTestCommand(facts: RootFacts): DetectedTestCommand | undefined {
  const names = new Set(facts.entries.map((entry) => entry.trim()));
  const has = (name: string) => names.has(name);
  if (has("package.json") && npmTest(facts.files["package.json"])) return { command: "npm test", because: "package.json scripts.test" };
  const pytest = pytestProject(facts, has);
  if (pytest !== undefined) return { command: "python3 -m pytest -q", because: pytest };
  if (has("go.mod")) return { command: "go test ./...", because: "go.mod" };
  if (has("Cargo.toml")) return { command: "cargo test --offline", because: "Cargo.toml" };
  if (has("pom.xml")) return { command: "mvn -o -q test", because: "pom.xml" };
  if (has("gradlew")) return { command: "./gradlew test --offline", because: "gradlew" };
  if (has("build.gradle") || has("build.gradle.kts")) return { command: "gradle test --offline", because: has("build.gradle") ? "build.gradle" : "build.gradle.kts" };
  return undefined;
}
