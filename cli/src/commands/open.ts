import { spawn } from "node:child_process";
import { renderForScreen } from "@aide/contracts";
import { reportError, requireStack } from "../client/require-stack.js";

/**
 * `aide open [SESSION]`: asks the gateway for a one-time login link to the web panel (a code that
 * works once, for a minute; the token stays out of the URL, the browser's history and the logs)
 * and prints it. With `--browser` and a display it also opens it with xdg-open.
 */
export async function run(session: string | undefined, options: { browser?: boolean }, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const client = requireStack();
  if (!client) return 1;
  try {
    const link = await client.panelLink(session);
    const url = client.connection.baseUrl + link.path;
    process.stdout.write(`${url}\n`);
    process.stderr.write(`(works once, until ${link.expires_at.slice(11, 19)} UTC; run aide open again for another)\n`);
    if (options.browser) {
      if (!env.DISPLAY && !env.WAYLAND_DISPLAY) {
        process.stderr.write("aide open: no display (DISPLAY is not set); open the link above in a browser\n");
        return 0;
      }
      const opener = spawn("xdg-open", [url], { detached: true, stdio: "ignore" });
      opener.once("error", (error) => process.stderr.write(renderForScreen(`aide open: xdg-open failed: ${error.message}`) + "\n"));
      opener.unref();
    }
    return 0;
  } catch (error) {
    return reportError(error);
  }
}
