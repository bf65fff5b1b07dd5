import { resolve } from "node:path";
import { Command, Option } from "commander";
import { z } from "zod";
import { serviceSubsetFlags, serviceSubsetFrom, serviceSubsetUsage, type ServiceSubset } from "./service-subset-options.js";

export const UpOptionsSchema = z.object({
  natsPort: z.coerce.number().int().min(0).max(65535).default(4233),
  gatewayPort: z.coerce.number().int().min(0).max(65535).default(4280),
  workspaces: z.array(z.string().min(1)).default([]),
  modelsConfig: z.string().optional(),
  model: z.string().optional(),
  /** The model service's loopback discovery: `off`, or `kind=port,...` (AIDE_MODEL_DISCOVERY). */
  modelDiscovery: z
    .string()
    .regex(/^(off|([a-z]+=\d{1,5})(,[a-z]+=\d{1,5})*)$/, "off, or kind=port,... (ollama, llamacpp, lmstudio, vllm)")
    .optional(),
  logLevel: z.enum(["fatal", "error", "warn", "info", "debug", "trace"]).default("info"),
  unsafeNoSandbox: z.boolean().default(false),
  unsandboxedServices: z.boolean().default(false),
  /** Accept ~/Documents, ~/Desktop and ~/Downloads themselves as workspaces (the orchestrator's AIDE_ALLOW_HOME_WORKSPACE). */
  allowHomeWorkspace: z.boolean().default(false),
});
export type UpOptions = z.infer<typeof UpOptionsSchema> & ServiceSubset;

/**
 * One row per `aide up` flag (shared with `aide demo`): its commander flags and help text, the
 * UpOptions field it fills, and how the raw value is turned into that field. Add a flag by adding
 * a row here (and its field to UpOptionsSchema).
 */
export interface UpOptionRow {
  flags: string;
  description: string;
  field: keyof UpOptions;
  /** Repeatable (`--workspace A --workspace B`): the values are collected in order. */
  repeatable?: boolean;
  /** From commander's raw value to the schema's input. */
  convert?: (value: unknown) => unknown;
}

const resolvePath = (value: unknown) => (typeof value === "string" ? resolve(value) : value);

export const upOptionRows: UpOptionRow[] = [
  {
    flags: "--workspace <dir>",
    description: "a workspace root sessions may use (repeatable; default: the current directory)",
    field: "workspaces",
    repeatable: true,
    convert: (v) => (v as string[]).map((dir) => resolve(dir)),
  },
  { flags: "--nats-port <port>", description: "the bus port (0 picks a free one)", field: "natsPort" },
  { flags: "--gateway-port <port>", description: "the gateway's REST/WebSocket port (0 picks a free one)", field: "gatewayPort" },
  { flags: "--models-config <file>", description: "the model registry (default: $AIDE_HOME/models.json)", field: "modelsConfig", convert: resolvePath },
  { flags: "--model <id>", description: "the default model of new sessions", field: "model" },
  { flags: "--model-discovery <list>", description: "loopback model servers to look for: off, or ollama=11434,llamacpp=8080,lmstudio=1234,vllm=8000", field: "modelDiscovery" },
  { flags: "--log-level <level>", description: "fatal, error, warn, info, debug or trace", field: "logLevel" },
  { flags: "--unsafe-no-sandbox", description: "run the tools' commands without bubblewrap (unsafe)", field: "unsafeNoSandbox" },
  { flags: "--unsandboxed-services", description: "run the services without their bubblewrap profiles (sessions say so)", field: "unsandboxedServices" },
  { flags: "--allow-home-workspace", description: "accept ~/Documents, ~/Desktop and ~/Downloads themselves as workspaces (never / or $HOME)", field: "allowHomeWorkspace" },
];

export const upEnvironmentNote = `AIDE_NATS_URL + AIDE_NATS_CREDS_DIR use an existing NATS instead of starting nats-server.
Part of a stack on this machine (docs/deployment.md, "Running on several machines"):
${serviceSubsetUsage}`;

/** Adds every row of the table to a commander command (`aide up`, `aide demo`). */
export function addUpOptions(command: Command): Command {
  for (const row of upOptionRows) {
    const option = new Option(row.flags, row.description);
    if (row.repeatable) option.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
    command.addOption(option);
  }
  // The service-subset flags (service-subset-options.ts), read by serviceSubsetFrom.
  const placeholder: Record<string, string> = { services: "<list>", nats: "<urls>", "bus-dir": "<dir>" };
  for (const entry of serviceSubsetFlags) command.addOption(new Option(`--${entry.flag} ${placeholder[entry.flag] ?? "<value>"}`, entry.help));
  return command;
}

/** A flag value the schema refuses, named by its flag (a usage error: exit 2). */
export class UpOptionsError extends Error {}

/** Turns commander's parsed values into UpOptions; throws UpOptionsError naming the bad flag. */
export function upOptionsFrom(values: Record<string, unknown>): UpOptions {
  const input: Record<string, unknown> = {};
  const flagOf: Record<string, string> = {};
  for (const row of upOptionRows) {
    const option = new Option(row.flags);
    flagOf[row.field] = option.long ?? row.flags;
    const raw = values[option.attributeName()];
    if (raw === undefined) continue;
    input[row.field] = row.convert ? row.convert(raw) : raw;
  }
  const parsed = UpOptionsSchema.safeParse(input);
  if (!parsed.success) {
    throw new UpOptionsError(parsed.error.issues.map((issue) => `${flagOf[String(issue.path[0])] ?? String(issue.path[0])}: ${issue.message}`).join("; "));
  }
  let subset: ServiceSubset;
  try {
    subset = serviceSubsetFrom({ services: values.services, nats: values.nats, "bus-dir": values.busDir }, process.env, parsed.data.workspaces);
  } catch (error) {
    throw new UpOptionsError((error as Error).message);
  }
  return { ...parsed.data, ...subset };
}

/** Parses `aide up` flags outside the program (tests, other callers); throws on a bad flag. */
export function parseUpOptions(argv: string[]): { options: UpOptions } {
  const command = addUpOptions(new Command("up"))
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  command.parse(argv, { from: "user" });
  return { options: upOptionsFrom(command.opts()) };
}
