import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startToolsHarness, type ToolsHarness } from "./helpers.js";

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "code");
type Row = [kind: string, name: string, start: number, end: number];
const rows = (definitions: Array<{ kind: string; name: string; start_line: number; end_line: number }>): Row[] => definitions.map((d) => [d.kind, d.name, d.start_line, d.end_line]);

/** Every fixture's definitions, checked by hand against the file. */
const expected: Record<string, { language: string; definitions: Row[] }> = {
  "shapes.ts": {
    language: "typescript",
    definitions: [
      ["interface", "Shape", 1, 3],
      ["method", "area", 2, 2],
      ["type", "Unit", 5, 5],
      ["enum", "Color", 7, 10],
      ["constant", "DEFAULT_UNIT", 12, 12],
      ["class", "Square", 14, 20],
      ["method", "constructor", 15, 15],
      ["method", "area", 17, 19],
      ["function", "totalArea", 22, 24],
      ["function", "double", 26, 26],
    ],
  },
  "widget.js": {
    language: "javascript",
    definitions: [
      ["class", "Widget", 1, 5],
      ["method", "render", 2, 4],
      ["function", "mount", 7, 9],
      ["constant", "VERSION", 11, 11],
      ["function", "unmount", 13, 13],
    ],
  },
  "inventory.py": {
    language: "python",
    definitions: [
      ["constant", "MAX_ITEMS", 1, 1],
      ["class", "Inventory", 5, 10],
      ["method", "__init__", 6, 7],
      ["method", "add", 9, 10],
      ["function", "count_items", 13, 14],
    ],
  },
  "server.go": {
    language: "go",
    definitions: [
      ["constant", "Port", 3, 3],
      ["struct", "Server", 5, 7],
      ["interface", "Handler", 9, 11],
      ["method", "Start", 13, 15],
      ["function", "main", 17, 19],
    ],
  },
  "engine.rs": {
    language: "rust",
    definitions: [
      ["constant", "LIMIT", 1, 1],
      ["struct", "Engine", 3, 5],
      ["enum", "Fuel", 7, 10],
      ["trait", "Drive", 12, 14],
      ["method", "drive", 13, 13],
      ["method", "new", 17, 19],
      ["function", "helper", 22, 22],
    ],
  },
  "Account.java": {
    language: "java",
    definitions: [
      ["class", "Account", 1, 12],
      ["constructor", "Account", 4, 6],
      ["method", "deposit", 8, 11],
      ["interface", "Auditable", 14, 16],
      ["method", "audit", 15, 15],
      ["enum", "Currency", 18, 21],
    ],
  },
  "buffer.c": {
    language: "c",
    definitions: [
      ["macro", "BUFFER_SIZE", 1, 1],
      ["struct", "buffer", 3, 6],
      ["type", "buffer_t", 8, 8],
      ["function", "buffer_length", 10, 12],
      ["function", "buffer_data", 14, 16],
    ],
  },
  "geometry.cpp": {
    language: "cpp",
    definitions: [
      ["namespace", "geometry", 1, 15],
      ["class", "Point", 3, 9],
      ["method", "x", 5, 5],
      ["function", "distance", 11, 13],
    ],
  },
  "settings.json": {
    language: "json",
    definitions: [
      ["key", "name", 2, 2],
      ["key", "scripts", 3, 5],
      ["key", "version", 6, 6],
    ],
  },
  "config.yaml": {
    language: "yaml",
    definitions: [
      ["key", "server", 1, 3],
      ["key", "logging", 4, 5],
      ["key", "name", 6, 6],
    ],
  },
  "guide.md": {
    language: "markdown",
    definitions: [
      ["heading1", "Guide", 1, 16],
      ["heading2", "Install", 5, 11],
      ["heading2", "Usage", 12, 16],
      ["heading3", "Options", 14, 16],
    ],
  },
};

const project: Record<string, string> = {
  "lib/core.ts": 'export class Store {\n  get(key: string): string {\n    return key;\n  }\n}\n\nexport function coreHelper(store: Store): string {\n  return store.get("a");\n}\n',
  "lib/format.ts": "export function formatName(name: string): string {\n  return name.trim();\n}\n",
  "app/a.ts": 'import { Store, coreHelper } from "../lib/core";\nexport function runA(): string {\n  return coreHelper(new Store());\n}\n',
  "app/b.ts": 'import { Store, coreHelper } from "../lib/core";\nexport function runB(): string {\n  return coreHelper(new Store());\n}\n',
  "app/c.ts": 'import { Store } from "../lib/core";\nexport const shared = new Store();\n',
  "app/d.ts": 'import { formatName } from "../lib/format";\nexport function runD(): string {\n  return formatName(" d ");\n}\n',
  "py/util.py": "def parse_rows(text):\n    return text.splitlines()\n",
  "py/main.py": 'from util import parse_rows\n\n\ndef main():\n    return parse_rows("a\\nb")\n',
};

describe("code intelligence over the bus", () => {
  let h: ToolsHarness;
  beforeAll(async () => {
    h = await startToolsHarness();
    cpSync(fixtures, join(h.workspace, "fixtures"), { recursive: true });
    for (const [path, text] of Object.entries(project)) {
      mkdirSync(dirname(join(h.workspace, "project", path)), { recursive: true });
      writeFileSync(join(h.workspace, "project", path), text);
    }
  });
  afterAll(async () => h?.stop());

  it.each(Object.keys(expected))("lists the exact definitions of %s", async (name) => {
    const done = await h.exec("list_code_definitions", { path: `fixtures/${name}` });
    expect(done.ok).toBe(true);
    expect(done.result.is_error, done.result.output).toBe(false);
    const [file] = done.result.metadata.files;
    expect(file.language).toBe(expected[name].language);
    expect(rows(file.definitions)).toEqual(expected[name].definitions);
    const first = expected[name].definitions[0];
    expect(done.result.output).toContain(`  ${first[2]}-${first[3]} ${first[0]} ${first[1]}: `);
  });

  it("never parses the same content twice, under any path", async () => {
    const first = await h.exec("list_code_definitions", { path: "fixtures/shapes.ts" });
    writeFileSync(join(h.workspace, "copy-of-shapes.ts"), await import("node:fs").then((fs) => fs.readFileSync(join(fixtures, "shapes.ts"))));
    const again = await h.exec("list_code_definitions", { path: "copy-of-shapes.ts" });
    expect(again.result.metadata.parsed).toBe(0);
    expect(again.result.metadata.parses_total).toBe(first.result.metadata.parses_total);
    expect(again.result.metadata.cache_hits_total).toBeGreaterThan(first.result.metadata.cache_hits_total);
  });

  it("refuses a file type without a grammar with LANGUAGE_UNSUPPORTED", async () => {
    writeFileSync(join(h.workspace, "notes.txt"), "plain\n");
    const done = await h.exec("list_code_definitions", { path: "notes.txt" });
    expect(done.result.is_error).toBe(true);
    expect(done.result.metadata.error_code).toBe("LANGUAGE_UNSUPPORTED");
  });

  it("lists a folder's files with their definitions", async () => {
    const done = await h.exec("list_code_definitions", { path: "project/lib" });
    expect(done.result.metadata.files.map((f: { path: string }) => f.path)).toEqual(["project/lib/core.ts", "project/lib/format.ts"]);
    expect(rows(done.result.metadata.files[0].definitions)).toEqual([
      ["class", "Store", 1, 5],
      ["method", "get", 2, 4],
      ["function", "coreHelper", 7, 9],
    ]);
  });

  it("ranks the most referenced file first, and the file defining the focus identifier first when given", async () => {
    const plain = await h.exec("code_map", { focus_paths: [] });
    const projectFiles = plain.result.metadata.map_files.filter((path: string) => path.startsWith("project/"));
    expect(projectFiles[0]).toBe("project/lib/core.ts");
    for (const [identifier, file] of [
      ["formatName", "project/lib/format.ts"],
      ["parse_rows", "project/py/util.py"],
    ]) {
      const focused = await h.exec("code_map", { focus_identifiers: [identifier] });
      expect(focused.result.metadata.map_files[0]).toBe(file);
      expect(focused.result.output.startsWith(`${file}\n`)).toBe(true);
    }
    const byPath = await h.exec("code_map", { focus_paths: ["project/py"], budget_tokens: 64 });
    expect(byPath.result.metadata.map_files[0]).toMatch(/^project\/py\//);
    expect(byPath.result.metadata.map_tokens).toBeLessThanOrEqual(64);
  });

  it("updates the map incrementally: an unchanged tree reads and parses nothing, an edit re-reads only its file", async () => {
    await h.exec("code_map", {});
    const idle = await h.exec("code_map", {});
    expect(idle.result.metadata.files_read).toBe(0);
    expect(idle.result.metadata.parsed).toBe(0);
    const edit = await h.exec("replace_in_file", {
      path: "project/lib/format.ts",
      search: "export function formatName",
      replace: "export function shout(text: string): string {\n  return text.toUpperCase();\n}\n\nexport function formatName",
    });
    expect(edit.result.is_error, edit.result.output).toBe(false);
    const after = await h.exec("code_map", { focus_identifiers: ["shout"] });
    expect(after.result.metadata.files_read).toBe(1);
    expect(after.result.metadata.parsed).toBe(1);
    expect(after.result.metadata.parses_total).toBe(idle.result.metadata.parses_total + 1);
    expect(after.result.metadata.map_files[0]).toBe("project/lib/format.ts");
    expect(after.result.output).toContain("1: function shout(text: string): string");
    writeFileSync(join(h.workspace, "project/app/e.ts"), "export function runE(): number {\n  return 1;\n}\n");
    const added = await h.exec("code_map", { focus_identifiers: ["runE"] });
    expect(added.result.metadata.files_read).toBe(1);
    expect(added.result.metadata.map_files[0]).toBe("project/app/e.ts");
  });
});

describe("code intelligence in the tools service's aide up sandbox", () => {
  let h: ToolsHarness;
  beforeAll(async () => {
    h = await startToolsHarness({ sandboxed: true });
    cpSync(fixtures, join(h.workspace, "fixtures"), { recursive: true });
  });
  afterAll(async () => h?.stop());

  it("loads the grammars from the installed packages", async () => {
    const done = await h.exec("list_code_definitions", { path: "fixtures/engine.rs" });
    expect(done.result.is_error, done.result.output).toBe(false);
    expect(rows(done.result.metadata.files[0].definitions)).toEqual(expected["engine.rs"].definitions);
  });
});
