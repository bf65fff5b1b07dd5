import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { filesToAdd, lastReply } from "../lib/aider-attempt.js";
import { trajectoryAnswer } from "../lib/mini-attempt.js";
import { buildPeersReport, peersMarkdown, summarize, type PeerRow } from "../lib/peers-report.js";

const row = (over: Partial<PeerRow>): PeerRow => ({
  run: "r",
  attempt: "a",
  task: "t1",
  language: "python",
  category: "bug",
  agent: "aide",
  model: "m",
  repeat: 0,
  outcome: "done",
  claimed: true,
  passed: true,
  false_claim: false,
  wall_ms: 10_000,
  timed_out: false,
  check_ms: 100,
  check_exit_code: 0,
  check_timed_out: false,
  model_calls: 4,
  failed_calls: 0,
  prompt_tokens: 100,
  completion_tokens: 10,
  calls_with_usage: 4,
  ...over,
});

describe("peers-report", () => {
  it("counts passes, false claims, median time and calls per agent", () => {
    const rows = [
      row({ task: "t1" }),
      row({ task: "t2", passed: false, claimed: false, outcome: "unverified", wall_ms: 30_000, model_calls: 8 }),
      row({ task: "t3", passed: false, claimed: false, outcome: "failed", wall_ms: 20_000, model_calls: 6 }),
      row({ agent: "aider", task: "t1", outcome: "edited", passed: false, claimed: true, false_claim: true, wall_ms: 40_000, model_calls: 1 }),
      row({ agent: "aider", task: "t2", outcome: "edited", wall_ms: 50_000, model_calls: 2 }),
    ];
    const [aide, aider, mini] = summarize(rows, ["aide", "aider", "mini-swe-agent"]);
    expect(aide).toMatchObject({ attempts: 3, passed: 1, claimed: 1, false_claims: 0, median_wall_s: 20, model_calls: 18, median_model_calls: 6 });
    expect(aider).toMatchObject({ attempts: 2, passed: 1, claimed: 2, false_claims: 1, median_wall_s: 45, model_calls: 3, median_model_calls: 1.5 });
    expect(mini).toMatchObject({ attempts: 0, passed: 0, median_wall_s: 0 });
    const markdown = peersMarkdown(buildPeersReport(rows, ["aide", "aider"], { model: "m" }), ["a note"]);
    expect(markdown).toContain("| aider | 2 | 1 | 2 | 1 |");
    expect(markdown).toMatch(/\| t1 \| pass \(done, 10 s, 4 calls\) \| FAIL! \(edited, 40 s, 1 calls\) \|/);
  });

  it("adds a project's text files to aider's chat, not its dotfiles or binaries", () => {
    const dir = mkdtempSync(join(tmpdir(), "peers-files-"));
    try {
      mkdirSync(join(dir, "src"));
      mkdirSync(join(dir, ".git"));
      writeFileSync(join(dir, "src", "a.py"), "x = 1\n");
      writeFileSync(join(dir, "README.md"), "# r\n");
      writeFileSync(join(dir, ".env"), "K=1\n");
      writeFileSync(join(dir, ".git", "HEAD"), "ref\n");
      writeFileSync(join(dir, "blob.bin"), Buffer.from([1, 0, 2]));
      expect(filesToAdd(dir)).toEqual(["README.md", "src/a.py"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads aider's last reply and mini-swe-agent's answer as a person would", () => {
    const history = "# aider chat started\n\n#### first\n\nold reply\n\n#### What port?\n\n> Added bin/serve.js to the chat\n\nIt listens on 7311.\n";
    expect(lastReply(history)).toBe("It listens on 7311.");
    expect(
      trajectoryAnswer({
        info: { submission: "" },
        messages: [
          { role: "assistant", content: "early" },
          { role: "user", content: "out" },
          { role: "assistant", content: "It runs bin/serve.js" },
        ],
      }),
    ).toBe("It runs bin/serve.js");
    expect(trajectoryAnswer({ info: { submission: "port 7311\n" }, messages: [] })).toBe("port 7311");
  });
});
