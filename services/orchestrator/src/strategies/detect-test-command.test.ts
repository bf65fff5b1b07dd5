import { describe, expect, it } from "vitest";
import { detectTestCommand } from "./detect-test-command.js";
import { fileTextOf } from "./resolve-test-command.js";

const detect = (entries: string[], files: Record<string, string> = {}) => detectTestCommand({ entries, files })?.command;

describe("the project's test command, from its root files", () => {
  it("finds each ecosystem's command, package.json first", () => {
    expect(detect(["package.json", "go.mod"], { "package.json": JSON.stringify({ scripts: { test: "vitest run" } }) })).toBe("npm test");
    expect(detect(["pytest.ini", "src/"])).toBe("python3 -m pytest -q");
    expect(detect(["pyproject.toml"], { "pyproject.toml": "[tool.pytest.ini_options]\naddopts = '-q'\n" })).toBe("python3 -m pytest -q");
    expect(detect(["calc.py", "tests/"])).toBe("python3 -m pytest -q");
    expect(detect(["go.mod", "main.go"])).toBe("go test ./...");
    expect(detect(["Cargo.toml", "src/"])).toBe("cargo test --offline");
    expect(detect(["pom.xml", "src/"])).toBe("mvn -o -q test");
    expect(detect(["gradlew", "build.gradle"])).toBe("./gradlew test --offline");
    expect(detect(["build.gradle.kts"])).toBe("gradle test --offline");
  });

  it("skips npm's placeholder test script, a package.json that is not JSON, and a pyproject without pytest", () => {
    expect(detect(["package.json"], { "package.json": JSON.stringify({ scripts: { test: 'echo "Error: no test specified" && exit 1' } }) })).toBeUndefined();
    expect(detect(["package.json", "go.mod"], { "package.json": "{ not json" })).toBe("go test ./...");
    expect(detect(["pyproject.toml"], { "pyproject.toml": "[project]\nname = 'x'\n" })).toBeUndefined();
    expect(detect(["README.md"])).toBeUndefined();
  });

  it("reads a file's text back from read_file's numbered output", () => {
    expect(fileTextOf('   1\t{\n   2\t  "scripts": { "test": "node t.js" }\n   3\t}')).toBe('{\n  "scripts": { "test": "node t.js" }\n}');
    expect(fileTextOf("   1\ta\n\n(Showing lines 1-1 of 1.)")).toBe("a");
  });
});
