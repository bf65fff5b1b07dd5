/** The loopback servers discovery asks, by kind: Ollama, llama.cpp's llama-server, LM Studio, vLLM. */
export const serverKinds = ["ollama", "llamacpp", "lmstudio", "vllm"] as const;
export type ServerKind = (typeof serverKinds)[number];

export const defaultPorts: Record<ServerKind, number> = { ollama: 11434, llamacpp: 8080, lmstudio: 1234, vllm: 8000 };

export interface DiscoverySettings {
  /** Port per kind; a kind that is absent is not asked. */
  ports: Partial<Record<ServerKind, number>>;
  /** Per-request budget (ms); discovery never waits longer than this for one server. */
  timeoutMs: number;
  /** Discovered GGUFs get their trained window, at most this many tokens. */
  maxContext: number;
}

export interface DiscoveryEnv {
  AIDE_MODEL_DISCOVERY?: string;
  AIDE_MODEL_DISCOVERY_TIMEOUT_MS?: string;
  AIDE_MODEL_MAX_CONTEXT?: string;
}

/**
 * `AIDE_MODEL_DISCOVERY`: `off`, or a comma-separated list of `kind=port` (e.g.
 * `ollama=11434,llamacpp=8081`; `kind=0` leaves one kind out); kinds not named keep their default
 * port. `AIDE_MODEL_DISCOVERY_TIMEOUT_MS` (default 700), `AIDE_MODEL_MAX_CONTEXT` (default 16384).
 * Throws with the bad entry named, so `aide up` refuses a typo instead of ignoring it.
 */
export function discoverySettings(env: DiscoveryEnv): DiscoverySettings {
  const timeout = Number.parseInt(env.AIDE_MODEL_DISCOVERY_TIMEOUT_MS ?? "", 10);
  const cap = Number.parseInt(env.AIDE_MODEL_MAX_CONTEXT ?? "", 10);
  const settings: DiscoverySettings = {
    ports: { ...defaultPorts },
    timeoutMs: timeout > 0 ? timeout : 700,
    maxContext: cap > 0 ? cap : 16_384,
  };
  const raw = (env.AIDE_MODEL_DISCOVERY ?? "").trim();
  if (raw === "") return settings;
  if (raw === "off") return { ...settings, ports: {} };
  for (const entry of raw
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)) {
    const match = /^([a-z]+)=(\d{1,5})$/.exec(entry);
    const kind = match?.[1] as ServerKind | undefined;
    const port = Number(match?.[2]);
    if (!match || !serverKinds.includes(kind!) || port > 65535) {
      throw new Error(`AIDE_MODEL_DISCOVERY: '${entry}' is not kind=port (kinds: ${serverKinds.join(", ")}; or 'off')`);
    }
    if (port === 0) delete settings.ports[kind!];
    else settings.ports[kind!] = port;
  }
  return settings;
}
