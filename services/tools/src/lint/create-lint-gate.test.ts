import { describe, expect, it } from "vitest";
import { createLintGate } from "./create-lint-gate.js";

describe("lint gate", () => {
  const gate = createLintGate();
  const check = (path: string, text: string) => gate.check(path, Buffer.from(text));

  it("parses JSON strictly and JSONC leniently", async () => {
    expect((await check("package.json", '{"a": 1,}')).status).toBe("failed");
    expect((await check("data.json", '\uFEFF{"a": 1}')).status).toBe("ok");
    expect((await check("tsconfig.json", '{ // c\n "a": 1, }')).status).toBe("ok");
    expect((await check("tsconfig.build.json", '{ /* c */ "a": [1,], }')).status).toBe("ok");
    expect((await check(".vscode/settings.json", '{ "a": 1, }')).status).toBe("ok");
    expect((await check("x.jsonc", '{ "a": }')).status).toBe("failed");
  });

  it("parses TS, TSX, JS and JSX with the TypeScript parser (syntax only)", async () => {
    expect((await check("a.ts", "const x: number = 'type error is fine';\n")).status).toBe("ok");
    const broken = await check("a.ts", "function f( {\n");
    expect(broken.status).toBe("failed");
    if (broken.status === "failed") expect(broken.message).toMatch(/line \d+, column \d+/);
    expect((await check("c.tsx", "export const A = () => <div>{1}</div>;\n")).status).toBe("ok");
    expect((await check("c.jsx", "export const A = () => <div>{1}</div;\n")).status).toBe("failed");
    expect((await check("m.mjs", "export default 1;\n")).status).toBe("ok");
  });

  it("compiles Python with python3, and says when a type is not checked", async () => {
    expect((await check("a.py", "def f():\n    return 1\n")).status).toBe("ok");
    expect((await check("a.py", "def f(:\n")).status).toBe("failed");
    expect(await check("README.md", "# anything")).toEqual({ status: "skipped", checker: "none" });
    const noPython = createLintGate({ python: null });
    expect((await noPython.check("a.py", Buffer.from("def f(:\n"))).status).toBe("skipped");
  });
});
