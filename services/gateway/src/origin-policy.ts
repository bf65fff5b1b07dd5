import { aideError, type AideError } from "@aide/contracts";

const loopbackHosts = ["127.0.0.1", "localhost", "[::1]"];

/**
 * Host and Origin allow-lists (DNS rebinding; cross-site requests and WebSocket hijacking): the
 * Host must name a loopback host or one of `extraHosts` (AIDE_GATEWAY_ALLOWED_HOSTS; without a
 * port, the gateway's) with the gateway's port; an Origin, when the client sends one, must be
 * `<scheme>://<that host>` (https when the gateway serves TLS). Non-browser clients send no Origin.
 */
export function createOriginPolicy(port: () => number, extraHosts: string[] = [], scheme: "http" | "https" = "http") {
  const allowedHosts = () => [...loopbackHosts.map((host) => `${host}:${port()}`), ...extraHosts.map((host) => (/:\d+$/.test(host) && !/^\[[^\]]*$/.test(host) ? host : `${host}:${port()}`))];
  return {
    allowedHosts,
    check(headers: { host?: string; origin?: string | string[] }): AideError | undefined {
      const host = (headers.host ?? "").toLowerCase();
      if (!allowedHosts().includes(host)) return aideError("FORBIDDEN_HOST", { host: JSON.stringify(host.slice(0, 200)) });
      const origin = headers.origin;
      if (origin === undefined) return undefined;
      const value = Array.isArray(origin) ? origin.join(",") : origin;
      if (!allowedHosts().some((allowed) => value === `${scheme}://${allowed}`)) {
        return aideError("FORBIDDEN_ORIGIN", { origin: JSON.stringify(value.slice(0, 200)) });
      }
      return undefined;
    },
  };
}
export type OriginPolicy = ReturnType<typeof createOriginPolicy>;
