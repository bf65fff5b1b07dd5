import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "./gateway-harness.js";

let h: Harness;
let dir: string;
let evalDir: string;
const get = (url: string) => h.gateway.app.inject({ method: "GET", url, headers: h.headers() });

function writeRun(name: string, files: Record<string, string>, mtime: Date): string {
  const folder = join(evalDir, name);
  mkdirSync(folder, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(folder, file), text);
  if (files["report.json"] !== undefined) utimesSync(join(folder, "report.json"), mtime, mtime);
  return folder;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "aide-eval-report-"));
  evalDir = join(dir, "home", "eval");
  writeFileSync(join(dir, "secret.svg"), "<svg>outside</svg>");
  h = await startHarness({ evalDir });
});
afterAll(async () => {
  await h?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("GET /api/eval/latest", () => {
  it("NOT_FOUND with what to do while no run has a report", async () => {
    const none = await get("/api/eval/latest");
    expect(none.statusCode).toBe(404);
    expect(none.json().error).toMatchObject({ code: "NOT_FOUND" });
    expect(none.json().error.message).toContain("aide eval");
    writeRun("run-unfinished", { "results.jsonl": "{}\n" }, new Date());
    expect((await get("/api/eval/latest")).json().error.code).toBe("NOT_FOUND");
    expect((await get("/api/eval/latest/report.html")).statusCode).toBe(404);
  });

  it("the run whose report.json was written last, its report and the files it serves", async () => {
    writeRun("run-b-older", { "report.json": JSON.stringify({ tasks: 1 }), "report.html": "<p>old</p>" }, new Date(Date.now() - 3_600_000));
    const newest = writeRun(
      "run-a-newest",
      {
        "report.json": JSON.stringify({ tasks: 20, pass: 13 }),
        "report.html": '<p>new</p><img src="pass-vs-time.svg">',
        "report.md": "# r",
        "pass-vs-time.svg": '<svg xmlns="http://www.w3.org/2000/svg"></svg>',
        "results.jsonl": "{}\n",
        "notes.txt": "x",
      },
      new Date(),
    );
    symlinkSync(join(dir, "secret.svg"), join(newest, "link.svg"));
    mkdirSync(join(newest, "dir.svg"));
    const latest = await get("/api/eval/latest");
    expect(latest.statusCode).toBe(200);
    expect(latest.json()).toMatchObject({ run: "run-a-newest", report: { tasks: 20, pass: 13 }, files: ["pass-vs-time.svg", "report.html", "report.json", "report.md"] });
    expect(Number.isNaN(Date.parse(latest.json().written_at))).toBe(false);
  });

  it("serves a listed file with its type and a sandboxing policy; nothing else, never a path", async () => {
    const html = await get("/api/eval/latest/report.html");
    expect(html.statusCode).toBe(200);
    expect(html.headers["content-type"]).toContain("text/html");
    expect(html.body).toContain("<p>new</p>");
    expect(html.headers["content-security-policy"]).toContain("sandbox");
    expect(html.headers["content-security-policy"]).not.toContain("script-src");
    const svg = await get("/api/eval/latest/pass-vs-time.svg");
    expect(svg.headers["content-type"]).toBe("image/svg+xml");
    expect(svg.headers["content-security-policy"]).toContain("sandbox");
    // The panel's own responses keep the panel's policy.
    expect((await get("/api/eval/latest")).headers["content-security-policy"]).toContain("script-src 'self'");
    for (const name of ["notes.txt", "results.jsonl", "link.svg", "dir.svg", "missing.svg"]) {
      const response = await get(`/api/eval/latest/${name}`);
      expect(response.statusCode, name).toBe(404);
      expect(response.json().error.code).toBe("NOT_FOUND");
    }
    for (const name of ["..%2F..%2Fsecret.svg", "%2Fetc%2Fpasswd", ".hidden.svg", "a%00.svg"]) {
      const response = await get(`/api/eval/latest/${name}`);
      expect(response.statusCode, name).toBe(400);
      expect(response.json().error.code).toBe("VALIDATION");
    }
    // Dot segments are resolved by the router before any route sees them: no route, no file.
    for (const url of ["/api/eval/latest/../../secret.svg", "/api/eval/latest/..", "/api/eval/latest/%2e%2e/%2e%2e/secret.svg"]) {
      const response = await get(url);
      expect(response.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(response.body).not.toContain("outside");
    }
  });
});
