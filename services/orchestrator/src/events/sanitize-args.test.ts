import { describe, expect, it } from "vitest";
import { digestOf, sanitizeArgs, summarizeOutput } from "./sanitize-args.js";

describe("sanitizeArgs (event payloads)", () => {
  it("replaces write bodies and patches with size and digest", () => {
    const body = "export const secret = 1;\n".repeat(100);
    const out = sanitizeArgs({ path: "a.ts", content: body, diff: "@@ -1 +1 @@" });
    expect(out.path).toBe("a.ts");
    expect(out.content).toEqual({ bytes: Buffer.byteLength(body), sha256: digestOf(body) });
    expect(JSON.stringify(out)).not.toContain("export const secret");
    expect(out.diff).toHaveProperty("sha256");
  });
  it("redacts secret-looking keys and cuts long values", () => {
    const out = sanitizeArgs({ api_key: "sk-123", command: "x".repeat(5000) });
    expect(out.api_key).toBe("[redacted]");
    expect(String(out.command).length).toBeLessThan(2100);
  });
  it("summarizes output on one line", () => {
    expect(summarizeOutput("a\n\n b\tc")).toBe("a b c");
  });
  it("keeps invisible characters for the sink to show (only ASCII whitespace is flattened)", () => {
    expect(summarizeOutput("one\u2028two\uFEFF")).toBe("one\u2028two\uFEFF");
  });
});
