import { parseArgs } from "node:util";
import { resolve } from "node:path";
import { z } from "zod";
import { serviceSubsetFlags, serviceSubsetFrom, serviceSubsetUsage, type ServiceSubset } from "./service-subset-options.js";

export const UpOptionsSchema = z.object({
  natsPort: z.coerce.number().int().min(0).max(65535).default(4233),
  gatewayPort: z.coerce.number().int().min(0).max(65535).default(4280),
  workspaces: z.array(z.string().min(1)).default([]),
  modelsConfig: z.string().optional(),
  model: z.string().optional(),
  /** The model service's loopback discovery: `off`, or `kind=port,...` (AIDE_MODEL_DISCOVERY). */
  modelDiscovery: z.string().regex(/^(off|([a-z]+=\d{1,5})(,[a-z]+=\d{1,5})*)$/, "off, or kind=port,... (ollama, llamacpp, lmstudio, vllm)").optional(),
  logLevel: z.enum(["fatal", "error", "warn", "info", "debug", "trace"]).default("info"),
  unsafeNoSandbox: z.boolean().default(false),
  unsandboxedServices: z.boolean().default(false),
});
export type UpOptions = z.infer<typeof UpOptionsSchema> & ServiceSubset;

export const upUsage = `usage: aide up [--workspace DIR ...] [--nats-port 4233] [--gateway-port 4280]
               [--models-config FILE] [--model ID] [--log-level info]
               [--model-discovery off|ollama=11434,llamacpp=8080,lmstudio=1234,vllm=8000]
               [--unsafe-no-sandbox] [--unsandboxed-services]
  AIDE_NATS_URL + AIDE_NATS_CREDS_DIR use an existing NATS instead of starting nats-server.
${serviceSubsetUsage}`;

/** Parses `aide up` flags (shared with `aide demo`); throws with the usage on a bad flag. */
export function parseUpOptions(argv: string[], extra: Record<string, { type: "string" | "boolean" }> = {}) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      "nats-port": { type: "string" },
      "gateway-port": { type: "string" },
      workspace: { type: "string", multiple: true },
      "models-config": { type: "string" },
      model: { type: "string" },
      "model-discovery": { type: "string" },
      "log-level": { type: "string" },
      "unsafe-no-sandbox": { type: "boolean" },
      "unsandboxed-services": { type: "boolean" },
      ...Object.fromEntries(serviceSubsetFlags.map((entry) => [entry.flag, { type: entry.type }])),
      ...extra,
    },
  });
  const parsed = UpOptionsSchema.safeParse({
    natsPort: values["nats-port"],
    gatewayPort: values["gateway-port"],
    workspaces: ((values.workspace as string[] | undefined) ?? []).map((dir) => resolve(dir)),
    modelsConfig: values["models-config"] ? resolve(values["models-config"] as string) : undefined,
    model: values.model,
    modelDiscovery: values["model-discovery"],
    logLevel: values["log-level"],
    unsafeNoSandbox: values["unsafe-no-sandbox"],
    unsandboxedServices: values["unsandboxed-services"],
  });
  if (!parsed.success) {
    throw new Error(`${parsed.error.issues.map((i) => `--${i.path.join(".")}: ${i.message}`).join("; ")}\n${upUsage}`);
  }
  let subset: ServiceSubset;
  try {
    subset = serviceSubsetFrom(values as Record<string, unknown>, process.env, parsed.data.workspaces);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${upUsage}`);
  }
  return { options: { ...parsed.data, ...subset } as UpOptions, values, positionals };
}
