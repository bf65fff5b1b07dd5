import { describe, expect, it } from "vitest";
import { HeadTailBuffer } from "./head-tail-buffer.js";
import { parseCommandLine } from "./command-line.js";
import { commandSandboxArguments } from "@aide/runtime";
import { sandboxEnvironment, secretPaths } from "./sandbox-environment.js";
import { suspectsNetwork } from "./network-suspicion.js";

describe("HeadTailBuffer", () => {
  it("keeps everything when small", () => {
    const buffer = new HeadTailBuffer(10);
    buffer.push(Buffer.from("abc\ndef\n"));
    expect(buffer.text()).toBe("abc\ndef\n");
    expect(buffer.truncated).toBe(false);
    expect(buffer.totalLines).toBe(2);
  });
  it("keeps head and tail with one marker and true totals", () => {
    const buffer = new HeadTailBuffer(4);
    for (let i = 0; i < 100; i += 1) buffer.push(Buffer.from(`${i}\n`));
    const text = buffer.text();
    expect(text.startsWith("0\n1\n")).toBe(true);
    expect(text.endsWith("\n99\n")).toBe(true);
    expect(text.match(/truncated/g)).toHaveLength(1);
    expect(text).toContain("in 100 lines");
    expect(buffer.totalBytes).toBe(290);
  });
  it("reads incrementally with since()", () => {
    const buffer = new HeadTailBuffer(1000);
    buffer.push(Buffer.from("one\n"));
    expect(buffer.since(0).text).toBe("one\n");
    buffer.push(Buffer.from("two\n"));
    expect(buffer.since(4).text).toBe("two\n");
    expect(buffer.since(8).text).toBe("");
  });
});

describe("command lines", () => {
  it("splits plain commands into argv and sends shell syntax to bash with pipefail", () => {
    expect(parseCommandLine("npm test -- --watch=false")).toEqual({ ok: true, argv: ["npm", "test", "--", "--watch=false"], shell: false });
    expect(parseCommandLine("ls | head")).toEqual({ ok: true, argv: ["bash", "-o", "pipefail", "-c", "ls | head"], shell: true });
    expect(parseCommandLine("FOO=1 node x.js").ok && (parseCommandLine("FOO=1 node x.js") as { shell: boolean }).shell).toBe(true);
    expect(parseCommandLine("echo 'a b'").ok && (parseCommandLine("echo 'a b'") as { argv: string[] }).argv[0]).toBe("bash");
  });
  it("refuses bare interactive programs but not scripts", () => {
    for (const command of ["python3", "node", "bash", "python3 -i", "vim a.txt", "tail -f log", "  sh  "]) expect(parseCommandLine(command).ok, command).toBe(false);
    for (const command of ["python3 x.py", "node -e 1", "bash script.sh", "python3 -m pytest"]) expect(parseCommandLine(command).ok, command).toBe(true);
  });
});

describe("sandbox arguments and environment", () => {
  it("unshares the network unless consented, and binds the workspace after the read-only root", () => {
    const args = commandSandboxArguments({ workspace: "/w", cwd: "/w/src", network: false, hide: [], limits: { fileSizeBytes: 1, openFiles: 2 } }, ["ls"]);
    expect(args).toContain("--unshare-net");
    expect(args).toContain("--cap-drop");
    expect(args.indexOf("--bind")).toBeGreaterThan(args.indexOf("--ro-bind"));
    expect(args.slice(args.indexOf("--chdir"), args.indexOf("--chdir") + 2)).toEqual(["--chdir", "/w/src"]);
    expect(args.slice(-2)).toEqual(["--", "ls"]);
    const open = commandSandboxArguments({ workspace: "/w", cwd: "/w", network: true, hide: [], limits: { fileSizeBytes: 1, openFiles: 2 } }, ["ls"]);
    expect(open).not.toContain("--unshare-net");
  });
  it("passes an allow-list environment only", () => {
    const env = sandboxEnvironment({ PATH: "/usr/bin:relative:/bin", AIDE_NATS_CREDS: "/x", OPENAI_API_KEY: "k", AIDE_GATEWAY_TOKEN: "t" });
    expect(env.PATH).toBe("/usr/bin:/bin");
    expect(Object.values(env).join(" ")).not.toMatch(/\/x|\bk\b|\bt\b/);
    expect(Object.keys(env)).not.toContain("OPENAI_API_KEY");
  });
  it("hides secret stores, the supervisor's run directory, the token and the credentials", () => {
    const paths = secretPaths("/home/u", {
      AIDE_HOME: "/opt/aide",
      AIDE_GATEWAY_TOKEN_FILE: "/opt/aide/run/gateway.token",
      AIDE_NATS_CREDS: "/opt/aide/run/credentials/tools.json",
      AIDE_SANDBOX_HIDE: "/srv/secrets:relative",
    });
    for (const expected of [
      "/home/u/.ssh",
      "/home/u/.aws",
      "/home/u/.aide",
      "/opt/aide/run",
      "/opt/aide/run/gateway.token",
      "/opt/aide/run/credentials/tools.json",
      "/opt/aide/run/credentials",
      "/srv/secrets",
    ])
      expect(paths).toContain(expected);
    expect(paths).not.toContain("relative");
  });

  it("suspects network use from the usual tools", () => {
    for (const command of ["curl x", "wget http://a", "git clone u", "npm install", "pip install x", "bash -c 'cat < /dev/tcp/1.2.3.4/80'", "python3 -c 'import socket'"])
      expect(suspectsNetwork(command), command).toBe(true);
    for (const command of ["npm test", "ls -la", "git status", "python3 main.py"]) expect(suspectsNetwork(command), command).toBe(false);
  });
});
