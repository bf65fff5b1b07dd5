import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { combineRunPolicy, loadRunPolicyFile, runPolicyFromFlags } from "./run-policy.js";

const noFlags = { allowCommand: [], denyRest: false };

describe("aide run's approval policy (flags and config file)", () => {
  it("sends no auto_approve when nothing was asked for, so the orchestrator's defaults apply", () => {
    expect(combineRunPolicy({}, runPolicyFromFlags(noFlags))).toEqual({});
  });

  it("all = edits + every command; deny-rest and the timeout pass through; flags win, allow-command adds to the file's", () => {
    const file = { allow_command: ["npm test"], auto_approve: "edits" as const, deny_rest: false, approval_timeout: 120 };
    const flags = runPolicyFromFlags({ allowCommand: ["git status", "npm test"], autoApprove: "all", denyRest: true, approvalTimeout: "30" });
    expect(combineRunPolicy(file, flags)).toEqual({
      autoApprove: { edits: true, commands: ["npm test", "git status"], all: true, deny_unmatched: true },
      approvalTimeoutSeconds: 30,
    });
    expect(combineRunPolicy(file, runPolicyFromFlags(noFlags))).toEqual({ autoApprove: { edits: true, commands: ["npm test"] }, approvalTimeoutSeconds: 120 });
  });

  it("a bad flag value names the flag", () => {
    expect(() => runPolicyFromFlags({ ...noFlags, autoApprove: "everything" })).toThrow(/--auto-approve/);
    expect(() => runPolicyFromFlags({ ...noFlags, approvalTimeout: "soon" })).toThrow(/--approval-timeout/);
    expect(() => runPolicyFromFlags({ ...noFlags, allowCommand: [" "] })).toThrow(/--allow-command/);
  });

  it("the config file: absent default is empty, a missing --config file, bad JSON and bad fields are refused by name", () => {
    const dir = mkdtempSync(join(tmpdir(), "aide-run-policy-"));
    expect(loadRunPolicyFile(undefined, dir)).toEqual({});
    expect(() => loadRunPolicyFile(join(dir, "nope.json"), dir)).toThrow(/--config .*nope.json: no such file/);
    writeFileSync(join(dir, "run.json"), "{");
    expect(() => loadRunPolicyFile(undefined, dir)).toThrow(/run.json: not valid JSON/);
    writeFileSync(join(dir, "run.json"), JSON.stringify({ approval_timeout: -1 }));
    expect(() => loadRunPolicyFile(undefined, dir)).toThrow(/field approval_timeout/);
    writeFileSync(join(dir, "run.json"), JSON.stringify({ deny_rest: true, allow_command: ["make build"] }));
    expect(loadRunPolicyFile(undefined, dir)).toEqual({ deny_rest: true, allow_command: ["make build"] });
  });
});
