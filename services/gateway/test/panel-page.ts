import { existsSync } from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { startHarness, type Harness } from "./gateway-harness.js";

const chromiumPath = "/usr/bin/chromium";

/** Debian's Chromium, headless, with nothing of its own reaching the network (never a downloaded browser). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(chromiumPath)) throw new Error("Debian's chromium is missing: apt-get install -y chromium");
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
  });
}

/** A fresh browser context logged in to the harness's panel; `problems` collects console errors and page errors. */
export async function openPanel(browser: Browser, h: Pick<Harness, "port" | "token">, viewport = { width: 1440, height: 900 }): Promise<{ page: Page; problems: string[]; close(): Promise<void> }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(error.message));
  await page.goto(`http://127.0.0.1:${h.port}/?token=${h.token}`);
  return { page, problems, close: () => context.close() };
}

/** Starts a task from the form and waits for the run's first approval (the fake run's, by default in its workspace); returns the session id. */
export async function startTaskFromForm(page: Page, task: string, workspace = "/tmp/sample-project"): Promise<string> {
  await page.fill("#task", task);
  await page.fill("#workspace", workspace);
  await page.click("#start");
  await page.locator(".approval-card.pending").first().waitFor();
  return (await page.locator("#session-id").textContent()) as string;
}

/**
 * One real gateway harness (listening) and one Chromium for a test file: started before its tests,
 * stopped after; `use` receives both once they are up.
 */
export function panelHarnessPerFile(use: (harness: Harness, browser: Browser) => void): void {
  let harness: Harness | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    harness = await startHarness({ listen: true });
    browser = await launchChromium();
    use(harness, browser);
  });
  afterAll(async () => {
    await browser?.close();
    await harness?.stop();
  });
}
