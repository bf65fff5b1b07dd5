import type { NatsConnection } from "nats";
import { aideError } from "@aide/contracts";

export interface WaitForServiceOptions {
  timeoutMs?: number;
  /** Checked between attempts; return a reason to give up early (e.g. the process exited). */
  stillStarting?: () => string | undefined;
}

/**
 * Resolves once the micro service `aide-<name>` answers `$SRV.PING`; throws UNAVAILABLE after
 * `timeoutMs`, or at once when `stillStarting` reports a reason to stop waiting.
 */
export async function waitForService(connection: NatsConnection, name: string, options: WaitForServiceOptions = {}): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const stop = options.stillStarting?.();
    if (stop !== undefined) throw aideError("UNAVAILABLE", { service: name, detail: stop });
    try {
      await connection.request(`$SRV.PING.aide-${name}`, new Uint8Array(), { timeout: 300 });
      return;
    } catch {
      if (Date.now() > deadline) throw aideError("UNAVAILABLE", { service: name, detail: `no answer to $SRV.PING within ${timeoutMs} ms` });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
