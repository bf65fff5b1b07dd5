import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { jsonForScreen, mcpHiddenCharactersWarning, McpConfigSchema, McpServerNameSchema, McpTrustFileSchema, renderForScreen, renderUntrusted, type McpConfig } from "@aide/contracts";
import { digestOf, formatIssues, mcpPaths, readMcpConfig, readTrustFile, workspaceConfigName } from "@aide/mcp/config";
import { aideHome } from "../supervisor/aide-home.js";

const usage = `usage: aide mcp list [--json]
       aide mcp add <name> [--network] [--workspace-write] [--auto-approve TOOL]... [--env KEY=VALUE]... [--env-file KEY=FILE]... [--pass-env KEY]... -- <command> [args...]
       aide mcp add <name> --url http://127.0.0.1:PORT/mcp [--allow-remote]
       aide mcp remove <name>
       aide mcp trust <dir>     (trust that workspace's ${workspaceConfigName} as it is now)`;

function writeAtomic(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
  chmodSync(file, 0o600);
}

/** `servers.<name>.…` key/value pairs of `--env KEY=VALUE`. */
function pairs(values: string[] | undefined, flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const value of values ?? []) {
    const at = value.indexOf("=");
    if (at <= 0) throw new Error(`${flag} wants KEY=VALUE, got ${JSON.stringify(value)}`);
    out[value.slice(0, at)] = value.slice(at + 1);
  }
  return out;
}

function add(config: McpConfig, argv: string[]): McpConfig {
  const dash = argv.indexOf("--");
  const own = dash >= 0 ? argv.slice(0, dash) : argv;
  const command = dash >= 0 ? argv.slice(dash + 1) : [];
  const { values, positionals } = parseArgs({
    args: own,
    allowPositionals: true,
    options: {
      network: { type: "boolean" },
      "workspace-write": { type: "boolean" },
      "auto-approve": { type: "string", multiple: true },
      env: { type: "string", multiple: true },
      "env-file": { type: "string", multiple: true },
      "pass-env": { type: "string", multiple: true },
      url: { type: "string" },
      "allow-remote": { type: "boolean" },
    },
  });
  const name = McpServerNameSchema.safeParse(positionals[0]);
  if (!name.success) throw new Error(`name: ${name.error.issues[0]?.message ?? "required"}`);
  const server = values.url
    ? { type: "http", url: values.url, allowRemote: values["allow-remote"] ?? false, auto_approve: values["auto-approve"] ?? [] }
    : {
        command: command[0] ?? "",
        args: command.slice(1),
        network: values.network ?? false,
        workspace_write: values["workspace-write"] ?? false,
        auto_approve: values["auto-approve"] ?? [],
        env: pairs(values.env, "--env"),
        env_files: pairs(values["env-file"], "--env-file"),
        env_passthrough: values["pass-env"] ?? [],
      };
  if (!values.url && command.length === 0) throw new Error("the server's command goes after --, e.g. aide mcp add docs -- npx some-mcp-server");
  const parsed = McpConfigSchema.safeParse({ ...config, servers: { ...config.servers, [name.data]: server } });
  if (!parsed.success) throw new Error(formatIssues(parsed.error));
  return parsed.data;
}

function list(home: string, json: boolean): number {
  const paths = mcpPaths(home);
  const config = readMcpConfig(paths.config);
  const state = existsSync(paths.stateFile)
    ? (JSON.parse(readFileSync(paths.stateFile, "utf8")) as { servers?: Array<Record<string, unknown>>; refused?: Array<Record<string, unknown>>; ignored?: Array<Record<string, unknown>> })
    : {};
  if (json) {
    process.stdout.write(`${jsonForScreen(JSON.stringify({ config: config.servers, state }, null, 2))}\n`);
    return 0;
  }
  // Everything below comes from the config or from the servers themselves: rendered for the terminal.
  const show = (value: unknown) => renderForScreen(String(value));
  const names = Object.keys(config.servers);
  if (names.length === 0) process.stdout.write(`no MCP servers in ${paths.config} (aide mcp add NAME -- COMMAND ...)\n`);
  for (const name of names) {
    const server = config.servers[name]!;
    const live = state.servers?.find((entry) => entry.name === name);
    const what = server.type === "http" ? server.url : [server.command, ...server.args].join(" ");
    process.stdout.write(`${show(name)}  ${live ? `${show(live.state)}, ${show(live.tools)} tools, ${show(live.restarts)} restarts` : "(not running: start aide up)"}\n  ${show(what)}\n`);
    if (typeof live?.hidden_characters === "number" && live.hidden_characters > 0) process.stdout.write(`  ${mcpHiddenCharactersWarning(live.hidden_characters)}\n`);
    if (live?.sandbox) process.stdout.write(`  sandbox: ${show(live.sandbox)}\n`);
    if (live?.last_error) process.stdout.write(`  last error: ${show(live.last_error)}\n`);
    for (const refused of state.refused?.filter((entry) => entry.server === name) ?? []) process.stdout.write(`  refused tool ${show(refused.tool)}: ${show(refused.reason)}\n`);
  }
  for (const ignored of state.ignored ?? []) process.stdout.write(`ignored ${show(ignored.file)}: ${show(ignored.reason)}\n`);
  return 0;
}

/** `aide mcp …`: the person's MCP servers in `$AIDE_HOME/mcp.json`, and trust for workspace files. */
export async function run(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [action, ...rest] = argv;
  const home = aideHome(env).root;
  const paths = mcpPaths(home);
  try {
    switch (action) {
      case undefined:
      case "list":
        return list(home, rest.includes("--json"));
      case "add": {
        writeAtomic(paths.config, add(readMcpConfig(paths.config), rest));
        process.stdout.write(`added ${rest[0]} to ${paths.config}; a running stack picks it up at its next start (aide up)\n`);
        return 0;
      }
      case "remove": {
        const config = readMcpConfig(paths.config);
        const name = rest[0] ?? "";
        if (!(name in config.servers)) throw new Error(`no MCP server named ${JSON.stringify(name)} in ${paths.config}`);
        delete config.servers[name];
        writeAtomic(paths.config, config);
        process.stdout.write(`removed ${name}\n`);
        return 0;
      }
      case "trust": {
        if (!rest[0]) throw new Error("trust wants the workspace directory");
        const dir = resolve(rest[0]);
        const file = join(dir, workspaceConfigName);
        if (!existsSync(file)) throw new Error(`${file} does not exist`);
        const bytes = readFileSync(file);
        const trust = readTrustFile(paths.trust);
        trust.trusted[dir] = { sha256: digestOf(bytes), trusted_at: new Date().toISOString() };
        writeAtomic(paths.trust, McpTrustFileSchema.parse(trust));
        process.stdout.write(`trusted ${file} (sha256 ${digestOf(bytes).slice(0, 16)}…); a changed file needs trust again\n${renderUntrusted(bytes.toString("utf8")).text}\n`);
        return 0;
      }
      default:
        process.stderr.write(`${usage}\n`);
        return 2;
    }
  } catch (error) {
    process.stderr.write(`aide mcp: ${(error as Error).message}\n`);
    return 2;
  }
}
