import { describe, expect, it } from "vitest";
import { interactiveCommandAdvice, isBareInteractive } from "./interactive-commands.js";
import { isDataFileExecution } from "./data-file-execution.js";

describe("isBareInteractive", () => {
  it.each([
    "python3",
    "python",
    "python3.11",
    "node",
    "bash",
    "sh",
    "irb",
    "psql",
    "psql -h localhost mydb",
    "mysql -u root",
    "sqlite3 app.db",
    "ipython",
    "deno",
    "vim src/a.ts",
    "less log.txt",
    "top",
    "cd src && python3",
    "sudo bash",
    "python3 -i script.py",
    "node --inspect",
    "redis-cli",
    "ghci",
    "R",
    "lua",
    "git commit",
    "git commit -a",
    "git rebase -i HEAD~3",
    "git add -p",
    "git tag -a v1",
    "docker run -it ubuntu bash",
    "docker exec -i c sh",
    "npm init",
    "npx ts-node",
    "python3 -m pdb main.py",
    "node inspect app.js",
  ])("%s is interactive", (command) => {
    expect(isBareInteractive(command)).toBe(true);
  });

  it.each([
    "python3 main.py",
    "python3 -c 'print(1)'",
    "python3 -m pytest",
    "node index.js",
    "node -e '1'",
    "node --version",
    "bash build.sh",
    "sh -c 'ls'",
    "psql -c 'select 1' mydb",
    "psql -f schema.sql",
    "mysql -e 'show tables'",
    "sqlite3 app.db 'select 1'",
    "echo 'print(1)' | python3",
    "python3 < script.py",
    "bash -s < setup.sh",
    "python3 <<EOF\nprint(1)\nEOF",
    "node <<< 'console.log(1)'",
    "python3 --version",
    "deno run main.ts",
    "irb script.rb",
    "redis-cli ping",
    "git log | less",
    "npm test",
    "ls",
    "emacs --batch -l x.el",
    "",
    "git commit -m 'fix'",
    "git commit -am 'fix'",
    "git commit --amend --no-edit",
    "git commit --message=x",
    "git rebase main",
    "git add -A",
    "git tag v1",
    "git tag -a v1 -m 'release'",
    "docker run --rm alpine echo hi",
    "npm init -y",
    "npx ts-node a.ts",
    "npx vitest run",
  ])("%s is not interactive", (command) => {
    expect(isBareInteractive(command)).toBe(false);
  });
});

describe("interactiveCommandAdvice", () => {
  it("says what to run instead", () => {
    expect(interactiveCommandAdvice("git commit")).toContain("-m");
    expect(interactiveCommandAdvice("python3")).toContain("-c");
    expect(interactiveCommandAdvice("vim a.ts")).toContain("replace_in_file");
    expect(interactiveCommandAdvice("npm init")).toContain("-y");
    expect(interactiveCommandAdvice("npm test")).toBeUndefined();
  });
});

describe("isDataFileExecution", () => {
  it.each([
    "./README.md",
    "python3 data.json",
    "node config.yaml",
    "bash notes.txt",
    "sh report.md",
    "python3 results.csv",
    "chmod +x plan.md && ./plan.md",
    "docs/guide.markdown",
    "ruby data.yml",
    "sudo ./notes.txt",
    "source TODO.md",
  ])("%s runs data", (command) => {
    expect(isDataFileExecution(command)).toBe(true);
  });

  it.each([
    "cat README.md",
    "python3 -m json.tool data.json",
    "node script.js data.json",
    "jq . data.json",
    "python3 analyze.py results.csv",
    "bash build.sh > out.txt",
    "./run.sh",
    "source .env",
    "node -e 'require(\"./a.json\")'",
    "less notes.txt",
    "",
  ])("%s does not", (command) => {
    expect(isDataFileExecution(command)).toBe(false);
  });
});
