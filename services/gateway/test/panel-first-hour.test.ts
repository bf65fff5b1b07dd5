import type { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import type { Harness } from "./gateway-harness.js";
import { openPanel, startTaskFromForm, panelHarnessPerFile } from "./panel-page.js";

/**
 * Issue 25's panel leftovers, in Debian's Chromium against a real gateway on a real bus (the fake
 * orchestrator publishes the events): the whole session card opens the session, a dropped event
 * stream says "reconnecting…" until the socket is back, a model's first probe shows its progress, and
 * the token chart follows its box's width.
 */
let h: Harness;
let browser: Browser;

panelHarnessPerFile((harness, chromium) => {
  h = harness;
  browser = chromium;
});

const loggedIn = (viewport?: { width: number; height: number }) => openPanel(browser, h, viewport);
const startTask = startTaskFromForm;

describe("the panel's first-hour leftovers", () => {
  it("a click anywhere on a session card opens that session, not only on its title", async () => {
    const { page, problems, close } = await loggedIn();
    try {
      const first = await startTask(page, "first task for the card");
      await page.click("#new-task");
      const second = await startTask(page, "second task for the card");
      expect(page.url()).toContain(`/s/${second}`);
      const card = page.locator(`#sessions li[data-session="${first}"]`);
      // The duration and the workspace are not links: a click there opened nothing before.
      await card.locator(".duration").click();
      await expect.poll(() => page.url()).toContain(`/s/${first}`);
      expect(await page.locator("#session-id").textContent()).toBe(first);
      await page.locator(`#sessions li[data-session="${second}"] .workspace`).click();
      await expect.poll(() => page.locator("#session-id").textContent()).toBe(second);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it("says reconnecting… while the event stream is down (the gateway's socket killed) and clears when events flow again", async () => {
    const { page, problems, close } = await loggedIn();
    // The gateway's own sockets of upgraded requests, as the server sees them.
    const upgraded: Socket[] = [];
    const onUpgrade = (_request: unknown, socket: Socket) => upgraded.push(socket);
    h.gateway.app.server.on("upgrade", onUpgrade);
    try {
      const session = await startTask(page, "reconnect");
      const indicator = page.locator("#connection");
      await expect.poll(() => upgraded.filter((socket) => !socket.destroyed).length).toBeGreaterThan(0);
      expect(await indicator.isHidden()).toBe(true);
      // Every open event socket is cut at the TCP level (no close frame): the browser sees 1006.
      for (const socket of upgraded) socket.destroy();
      await indicator.waitFor({ state: "visible" });
      expect(await indicator.textContent()).toBe("reconnecting…");
      // The panel reconnects by itself; the indicator clears and events published now arrive.
      await indicator.waitFor({ state: "hidden" });
      await h.orchestrator.publish(session, "message.received", { text: "after the reconnect" });
      await page.getByText("after the reconnect").first().waitFor();
      expect(problems).toEqual([]);
    } finally {
      h.gateway.app.server.off("upgrade", onUpgrade);
      await close();
    }
  });

  it("a model's first probe shows as one line that follows its progress, from loading to done", async () => {
    const { page, problems, close } = await loggedIn();
    try {
      const session = await startTask(page, "probe progress");
      const line = page.locator("#transcript li.probe");
      const progress = (stage: string, step: number, elapsed: number) => ({ model: "stories260K", stage, step, steps: 20, percent: Math.round((step / 20) * 100), elapsed_ms: elapsed });
      await h.orchestrator.publish(session, "model.probing", progress("loading", 0, 5));
      await line.waitFor();
      expect(await line.textContent()).toBe("⧗ First use of stories260K: probing it (loading) — 0 %, 0 s");
      await h.orchestrator.publish(session, "model.probing", progress("tool_trials", 14, 61_000));
      await expect.poll(() => line.textContent()).toBe("⧗ First use of stories260K: probing it (tool trials) — 70 %, 61 s");
      await h.orchestrator.publish(session, "model.probing", progress("done", 20, 75_400));
      await expect.poll(() => line.getAttribute("data-stage")).toBe("done");
      expect(await line.textContent()).toBe("✓ Probed stories260K in 75.4 s (cached for later runs)");
      expect(await page.locator("#transcript li.probe").count()).toBe(1);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it("the token chart redraws at the new width when its box is resized", async () => {
    const { page, problems, close } = await loggedIn({ width: 1440, height: 900 });
    try {
      const session = await startTask(page, "chart");
      for (const [index, prompt] of [1200, 1500].entries()) {
        await h.orchestrator.publish(session, "model.responded", {
          request_id: `r${index}`,
          text: "",
          tool_calls: 1,
          finish_reason: "stop",
          prompt_tokens: prompt,
          completion_tokens: 40,
          duration_ms: 900,
        });
      }
      const canvas = page.locator("#costs-chart .uplot canvas");
      await canvas.waitFor();
      const wide = await page.locator("#costs-chart .uplot").evaluate((element) => element.getBoundingClientRect().width);
      await page.setViewportSize({ width: 400, height: 900 });
      await expect.poll(() => page.locator("#costs-chart .uplot").evaluate((element) => Math.round(element.getBoundingClientRect().width))).toBeLessThan(Math.round(wide));
      const box = await page.locator("#costs-chart").evaluate((element) => element.clientWidth);
      const drawn = await page.locator("#costs-chart .uplot").evaluate((element) => element.getBoundingClientRect().width);
      expect(drawn).toBeLessThanOrEqual(Math.max(240, box) + 1);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
});
