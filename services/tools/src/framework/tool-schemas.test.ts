import { describe, expect, it } from "vitest";
import { allTools } from "../tools/catalog.js";
import { describeTool } from "./list-tools.js";
import { normalizeArguments } from "./normalize-arguments.js";

const tools = allTools({ ripgrep: true });
const find = (name: string) => tools.find((t) => t.name === name)!;

describe("the tool catalog the model sees", () => {
  it("matches the reviewed JSON Schema snapshot", async () => {
    const catalog = tools.map(describeTool);
    await expect(JSON.stringify(catalog, null, 2) + "\n").toMatchFileSnapshot("./__snapshots__/tool-schemas.json");
  });

  it("every parameter has a description and every schema forbids unknown properties", () => {
    for (const tool of tools.map(describeTool)) {
      expect(tool.parameters.additionalProperties, tool.name).toBe(false);
      for (const [name, property] of Object.entries(tool.parameters.properties as Record<string, { description?: string }>)) {
        expect(property.description, `${tool.name}.${name}`).toBeTruthy();
      }
      expect(tool.description.length, tool.name).toBeLessThan(400);
    }
  });

  it("shows numbers and booleans typed even though their string forms are accepted", () => {
    const read = describeTool(find("read_file")).parameters as { properties: Record<string, { type: string }> };
    expect(read.properties.offset.type).toBe("integer");
    const list = describeTool(find("list_dir")).parameters as { properties: Record<string, { type: string }>; required?: string[] };
    expect(list.properties.recursive.type).toBe("boolean");
    expect(list.required).toBeUndefined();
  });
});

describe("argument normalization", () => {
  it("coerces the XML protocol's strings", () => {
    const result = normalizeArguments(find("read_file"), { path: "a", offset: "10", limit: " 5 " });
    expect(result).toEqual({ ok: true, args: { path: "a", offset: 10, limit: 5 }, notices: [] });
    const list = normalizeArguments(find("list_dir"), { recursive: "false" });
    expect(list.ok && list.args.recursive).toBe(false);
    const yes = normalizeArguments(find("search_files"), { pattern: "x", literal: "True", case_insensitive: "1" });
    expect(yes.ok && yes.args).toMatchObject({ literal: true, case_insensitive: true });
  });

  it("repairs aliases and says so", () => {
    const result = normalizeArguments(find("write_file"), { file_path: "a.txt", text: "x" });
    expect(result.ok && result.args).toEqual({ path: "a.txt", content: "x" });
    expect(result.notices).toHaveLength(2);
    const command = normalizeArguments(find("run_command"), { cmd: "ls", working_directory: "src" });
    expect(command.ok && command.args).toEqual({ command: "ls", cwd: "src" });
    const upper = normalizeArguments(find("read_file"), { PATH: "a" });
    expect(upper.ok && upper.args).toEqual({ path: "a" });
  });

  it("treats an empty optional argument as not given, but keeps meaningful empty strings", () => {
    const command = normalizeArguments(find("run_command"), { command: "ls", cwd: "" });
    expect(command.ok && command.args).toEqual({ command: "ls" });
    const deletion = normalizeArguments(find("replace_in_file"), { path: "a", search: "x\n", replace: "" });
    expect(deletion.ok && deletion.args).toEqual({ path: "a", search: "x\n", replace: "" });
    const empty = normalizeArguments(find("write_file"), { path: "a", content: "" });
    expect(empty.ok && empty.args).toEqual({ path: "a", content: "" });
  });

  it("refuses argument names that are members every object inherits, without throwing", () => {
    // Found by the fuzz bench: `shape[key].safeParse is not a function` for an inherited name.
    for (const key of ["toString", "constructor", "hasOwnProperty", "__proto__"]) {
      const raw = JSON.parse(`{"path":"a",${JSON.stringify(key)}:""}`) as Record<string, unknown>;
      const result = normalizeArguments(find("diagnostics"), raw);
      expect(result.ok, key).toBe(false);
      if (!result.ok) expect(result.error, key).toContain(`Unknown argument(s) for diagnostics: \`${key}\``);
    }
  });

  it("does not let an alias overwrite the real argument", () => {
    const result = normalizeArguments(find("read_file"), { path: "a", file_path: "b" });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain("`file_path`");
  });

  it("refuses unknown arguments and bad values with a message the model can act on", () => {
    const unknown = normalizeArguments(find("read_file"), { path: "a", colour: "red" });
    expect(unknown.ok).toBe(false);
    if (!unknown.ok) expect(unknown.error).toBe("Unknown argument(s) for read_file: `colour`. Accepted arguments: `path`, `offset`, `limit`, `char_offset`.");
    const missing = normalizeArguments(find("read_file"), {});
    if (!missing.ok) expect(missing.error).toContain("`path` is required");
    const bad = normalizeArguments(find("read_file"), { path: "a", offset: "ten" });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toContain("`offset`");
    const negative = normalizeArguments(find("read_file"), { path: "a", offset: "0" });
    expect(negative.ok).toBe(false);
  });

  it("a path over 160 characters or a pattern over 120 (the bounds the local models' grammar reads from these schemas) is refused, saying the bound", () => {
    expect(normalizeArguments(find("read_file"), { path: "a/".repeat(80) }).ok).toBe(true);
    const long = normalizeArguments(find("read_file"), { path: "a/".repeat(80) + "b" });
    expect(long.ok).toBe(false);
    if (!long.ok) expect(long.error).toContain("at most 160 characters: give the path relative to the workspace");
    const pattern = normalizeArguments(find("search_files"), { pattern: "x".repeat(121) });
    expect(pattern.ok).toBe(false);
    if (!pattern.ok) expect(pattern.error).toContain("at most 120 characters");
  });
});
