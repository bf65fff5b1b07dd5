import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";

/**
 * The id `aide up` gives its orchestrator: the host name and a random suffix kept in
 * `$AIDE_HOME/run/orchestrator-id`, so a restart of this stack's orchestrator (after a crash too)
 * resumes its runs at once, while another stack on the host (another AIDE_HOME) has its own id.
 */
export function stackOrchestratorId(runDir: string): string {
  const file = join(runDir, "orchestrator-id");
  try {
    const existing = readFileSync(file, "utf8").trim();
    if (/^[A-Za-z0-9_-]{1,64}$/.test(existing)) return existing;
  } catch {
    // First start of this home.
  }
  const id = `orchestrator-${hostname()
    .replace(/[^A-Za-z0-9_-]/g, "-")
    .slice(0, 40)}-${randomBytes(4).toString("hex")}`;
  writeFileSync(file, id + "\n", { mode: 0o600 });
  return id;
}
