import { describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { until, type Harness } from "./gateway-harness.js";
import { openPanel, startTaskFromForm, panelHarnessPerFile } from "./panel-page.js";

/**
 * The session's auto-approve rules in the panel, in Debian's Chromium against a real
 * gateway on a real bus: shown, the edits switch toggled, a command rule added and removed (each a
 * `POST /api/agent/auto-approve` the fake orchestrator receives), a second screen on the session
 * following the change from `session.auto_approve_changed`, and a rule the gateway refuses.
 */
let h: Harness;
let browser: Browser;

panelHarnessPerFile((harness, chromium) => {
  h = harness;
  browser = chromium;
});

describe("the panel's auto-approve rules", () => {
  it("shows the session's rules; toggles edits, adds and removes a command rule; another screen follows", async () => {
    const first = await openPanel(browser, h);
    const second = await openPanel(browser, h);
    try {
      const page = first.page;
      const session = await startTaskFromForm(page, "auto-approve rules");
      const box = page.locator("#auto-approve");
      await box.waitFor();
      await box.locator("summary").click();
      expect(await page.locator("#auto-approve-summary").textContent()).toBe("edits off · no command rules");
      expect(await page.locator("#auto-approve-never").textContent()).toContain("protected paths, secret-file reads, memory changes, network use");
      await second.page.goto(`http://127.0.0.1:${h.port}/s/${session}`);
      await second.page.locator("#auto-approve").waitFor();

      await page.fill("#auto-approve-rule", "npm run lint");
      await page.click('[data-action="add-rule"]');
      await page.locator('#auto-approve-commands li[data-rule="npm run lint"]').waitFor();
      // The field empties when the gateway's reply lands, which may come after the announcement drew the rule.
      await expect.poll(() => page.locator("#auto-approve-rule").inputValue()).toBe("");
      // A click, not check(): check() fails if the add's own announcement lands between its click and
      // its look, redrawing the switch from the older rules until the edits reply arrives.
      await page.locator("#auto-approve-edits").click();
      await expect.poll(() => page.locator("#auto-approve-summary").textContent()).toBe("edits on · 1 command rule");
      expect(h.orchestrator.autoApproveChanges.filter((change) => change.session === session).map(({ session: _, ...change }) => change)).toEqual([
        { add_commands: ["npm run lint"] },
        { edits: true },
      ]);

      // The other screen learned both changes from the event stream.
      await expect.poll(() => second.page.locator("#auto-approve-summary").textContent()).toBe("edits on · 1 command rule");
      expect(await second.page.locator("#auto-approve-edits").isChecked()).toBe(true);

      await page.click('#auto-approve-commands li[data-rule="npm run lint"] [data-action="remove-rule"]');
      await expect.poll(() => page.locator("#auto-approve-commands li").count()).toBe(0);
      await until(() => h.orchestrator.autoApproveChanges.some((change) => change.session === session && JSON.stringify(change.remove_commands) === '["npm run lint"]'), "the removal");
      await expect.poll(() => second.page.locator("#auto-approve-commands li").count()).toBe(0);

      // A reply that lands after a newer announcement (another screen's change made meanwhile) does
      // not draw its older rules over the newer ones: the view keeps the highest event seq.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      h.orchestrator.holdReply = (command) => (command === "auto_approve" ? held : undefined);
      try {
        await page.fill("#auto-approve-rule", "make");
        await page.click('[data-action="add-rule"]');
        await page.locator('#auto-approve-commands li[data-rule="make"]').waitFor();
        const snapshot = h.orchestrator.sessions.get(session)!;
        snapshot.auto_approve = { edits: true, commands: ["make", "go vet"] };
        await h.orchestrator.publish(session, "session.auto_approve_changed", { auto_approve: snapshot.auto_approve });
        await page.locator('#auto-approve-commands li[data-rule="go vet"]').waitFor();
      } finally {
        h.orchestrator.holdReply = undefined;
        release();
      }
      await expect.poll(() => page.locator("#auto-approve-rule").inputValue()).toBe("");
      expect(await page.locator("#auto-approve-summary").textContent()).toBe("edits on · 2 command rules");
      expect(await page.locator("#auto-approve-commands li").evaluateAll((items) => items.map((item) => item.getAttribute("data-rule")))).toEqual(["make", "go vet"]);
      await expect.poll(() => second.page.locator("#auto-approve-summary").textContent()).toBe("edits on · 2 command rules");
      for (const rule of ["make", "go vet"]) {
        await page.click(`#auto-approve-commands li[data-rule="${rule}"] [data-action="remove-rule"]`);
        await page.locator(`#auto-approve-commands li[data-rule="${rule}"]`).waitFor({ state: "detached" });
      }

      // A rule with shell control characters never reaches the orchestrator: the gateway says why.
      const before = h.orchestrator.autoApproveChanges.length;
      await page.fill("#auto-approve-rule", "npm test; curl evil");
      await page.click('[data-action="add-rule"]');
      await expect.poll(() => page.locator("#auto-approve-error").textContent()).toContain("VALIDATION");
      expect(h.orchestrator.autoApproveChanges.length).toBe(before);
      expect(await page.locator("#auto-approve-commands li").count()).toBe(0);
      expect(first.problems.filter((problem) => !problem.includes("400"))).toEqual([]);
      expect(second.problems).toEqual([]);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
