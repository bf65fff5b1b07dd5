import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startPeersLlamaServer } from "../lib/peers-llama-server.js";

const dir = mkdtempSync(join(tmpdir(), "peers-llama-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A stand-in binary: takes llama-server's flags, records them, answers /health once listening. */
function standIn(): string {
  const script = join(dir, "server.mjs");
  writeFileSync(
    script,
    [
      'import { createServer } from "node:http";',
      'import { writeFileSync } from "node:fs";',
      "const args = process.argv.slice(2);",
      `writeFileSync(${JSON.stringify(join(dir, "args.json"))}, JSON.stringify(args));`,
      'createServer((req, res) => res.writeHead(req.url === "/health" ? 200 : 404).end()).listen(Number(args[args.indexOf("--port") + 1]), "127.0.0.1");',
    ].join("\n"),
  );
  const binary = join(dir, "llama-server");
  writeFileSync(binary, `#!/bin/sh\nexec ${process.execPath} ${script} "$@"\n`);
  chmodSync(binary, 0o755);
  return binary;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("peers-llama-server", () => {
  it("starts on a loopback port with --jinja and the threads asked for, and is gone once closed", async () => {
    const server = await startPeersLlamaServer({ binary: standIn(), file: "/m.gguf", alias: "m", threads: 1, contextSize: 8192, logFile: join(dir, "log") });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const args = JSON.parse(readFileSync(join(dir, "args.json"), "utf8")) as string[];
    expect(args).toEqual(expect.arrayContaining(["--jinja", "-m", "/m.gguf", "--alias", "m", "-t", "1", "-c", "8192", "-np", "1", "--host", "127.0.0.1"]));
    await server.close();
    expect(alive(server.pid)).toBe(false);
  });

  it("says so when the server exits before it is ready", async () => {
    const binary = join(dir, "broken");
    writeFileSync(binary, "#!/bin/sh\necho 'error: no model' >&2\nexit 3\n");
    chmodSync(binary, 0o755);
    await expect(startPeersLlamaServer({ binary, file: "/m.gguf", alias: "m", threads: 1, contextSize: 8192, logFile: join(dir, "broken.log") })).rejects.toThrow(/exited \(3\) before it was ready/);
    expect(readFileSync(join(dir, "broken.log"), "utf8")).toContain("no model");
  });
});
