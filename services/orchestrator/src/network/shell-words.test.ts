import { describe, expect, it } from "vitest";
import { parseShell } from "./shell-words.js";
import { effectiveCommand } from "./command-words.js";

const words = (text: string) => parseShell(text).pipelines.map((pipeline) => pipeline.map((command) => command.words));

describe("parseShell", () => {
  it("splits pipelines and stages, removing quotes", () => {
    expect(words(`a 'b c' "d e" && f | g; h`)).toEqual([[["a", "b c", "d e"]], [["f"], ["g"]], [["h"]]]);
  });

  it("drops redirection targets and fd digits", () => {
    expect(words("make 2>&1 > out.log | tee x")).toEqual([[["make"], ["tee", "x"]]]);
    expect(words("echo 2 >f")).toEqual([[["echo", "2"]]]);
  });

  it("collects command and process substitutions as nested commands", () => {
    const parsed = parseShell(`echo "$(curl x)" \`wget y\` <(nc h 1)`);
    expect(parsed.nested).toEqual(["curl x", "wget y", "nc h 1"]);
  });

  it("keeps heredoc bodies apart from the commands", () => {
    const parsed = parseShell("cat <<'EOF' > a.sh\ncurl x\nEOF\necho done");
    expect(parsed.pipelines.map((pipeline) => pipeline.map((command) => command.words))).toEqual([[["cat"]], [["echo", "done"]]]);
    expect(parsed.pipelines[0][0]).toMatchObject({ stdinRedirected: true, heredocs: ["curl x"] });
  });

  it("keeps escaped operators inside words", () => {
    expect(words("echo a\\;b")).toEqual([[["echo", "a;b"]]]);
  });
});

describe("effectiveCommand", () => {
  it("strips env assignments, sudo with options, absolute paths", () => {
    expect(effectiveCommand(["A=1", "sudo", "-u", "me", "/usr/bin/curl", "x"])).toEqual({ name: "curl", args: ["x"], program: "/usr/bin/curl" });
    expect(effectiveCommand(["timeout", "-s", "KILL", "5", "wget", "y"])).toEqual({ name: "wget", args: ["y"], program: "wget" });
    expect(effectiveCommand(["env"])).toEqual({ name: "env", args: [], program: "env" });
  });
});
