import { describe, expect, it } from "vitest";
import type { ChatTool } from "@aide/contracts";
import { buildToolCallGrammar } from "./tool-call-grammar.js";
import { parseTextToolCalls } from "./tool-call-parse.js";

const tools: ChatTool[] = [
  { name: "read_file", description: "", parameters: { type: "object", properties: { path: { type: "string" }, offset: { type: "integer" } }, required: ["path"] } },
  { name: "git_status", description: "", parameters: { type: "object", properties: { mode: { enum: ["short", "long"] } } } },
  { name: "bad name!", description: "", parameters: { type: "object", properties: {} } },
];

describe("buildToolCallGrammar", () => {
  it("builds one rule per tool and parameter, typed from the JSON Schema", () => {
    const grammar = buildToolCallGrammar(tools, { choice: "auto" });
    expect(grammar).toContain("root ::= prose (call (sep call){0,3})?");
    expect(grammar).toContain('tool-read-file ::= "<read_file>" nl param-read-file-path param-read-file-offset? "</read_file>"');
    expect(grammar).toContain('param-read-file-offset ::= "<offset>" ("0" | "-"? [1-9] [0-9]{0,14}) "</offset>" nl');
    expect(grammar).toContain('("short" | "long")');
    expect(grammar).not.toContain("bad name");
  });

  it("requires a call with bounded prose, or forbids calls", () => {
    expect(buildToolCallGrammar(tools, { choice: "required", maxCalls: 1 })).toMatch(/root ::= prose call \(sep call\)\{0,0\}\nprose ::= \[\^<\]\{0,256\}/);
    expect(buildToolCallGrammar(tools, { choice: "none" })).toBe("root ::= [^<]*\n");
  });
});

describe("grammar scope and schema constraints (experiment settings)", () => {
  const bounded: ChatTool[] = [
    {
      name: "list_dir",
      description: "",
      parameters: { type: "object", properties: { path: { type: "string", minLength: 1, maxLength: 4096 }, max_entries: { type: "integer", minimum: 1, maximum: 2000 } } },
    },
  ];

  it("scope reply: exactly one call and nothing around it when a call is required; prose alone or one call otherwise", () => {
    const required = buildToolCallGrammar(bounded, { choice: "required", scope: "reply" });
    expect(required).toMatch(/^root ::= ws call\n/);
    expect(required).not.toContain("prose");
    expect(buildToolCallGrammar(bounded, { choice: "auto", scope: "reply" })).toMatch(/^root ::= \(ws call \| \[\^<\]\+\)\n/);
    expect(buildToolCallGrammar(bounded, { choice: "required" })).toMatch(/^root ::= prose call/);
  });

  it("schema on: integer bounds and non-empty strings; off: today's loose values", () => {
    const strict = buildToolCallGrammar(bounded, { choice: "required", schema: true });
    expect(strict).toContain('param-list-dir-max-entries ::= "<max_entries>" ([1-9] | [1-9] [0-9]{1} | [1-9] [0-9]{2} | ("1" [0-9]{3} | "2" "0" "0" "0")) "</max_entries>" nl');
    expect(strict).toContain('param-list-dir-path ::= "<path>" "\\n"? visible [^<\\n]{0,254} "\\n"? "</path>" nl');
    const loose = buildToolCallGrammar(bounded, { choice: "required" });
    expect(loose).toContain('"<max_entries>" ("0" | "-"? [1-9] [0-9]{0,14}) "</max_entries>"');
    expect(loose).toContain('"<path>" text "</path>"');
  });
});

describe("argument sets (anyOf): replace_in_file's diff, or search with replace", () => {
  const edit: ChatTool[] = [
    {
      name: "replace_in_file",
      description: "",
      parameters: {
        type: "object",
        properties: { path: { type: "string" }, diff: { type: "string" }, search: { type: "string" }, replace: { type: "string" } },
        required: ["path"],
        anyOf: [
          { type: "object", properties: { path: { type: "string" }, diff: { type: "string" } }, required: ["path", "diff"], additionalProperties: false },
          { type: "object", properties: { path: { type: "string" }, search: { type: "string" }, replace: { type: "string" } }, required: ["path", "search", "replace"], additionalProperties: false },
        ],
      },
    },
  ];

  it("the grammar has one parameter sequence per set, each with its own required keys", () => {
    const grammar = buildToolCallGrammar(edit, { choice: "required", scope: "reply", schema: true });
    expect(grammar).toContain(
      'tool-replace-in-file ::= "<replace_in_file>" nl (param-replace-in-file-1-path param-replace-in-file-1-diff | param-replace-in-file-2-path param-replace-in-file-2-search param-replace-in-file-2-replace) "</replace_in_file>"',
    );
  });

  it("an open anyOf branch (no additionalProperties: false, as an MCP server may send) keeps the tool's other parameters", () => {
    const open: ChatTool[] = [
      {
        name: "lookup",
        description: "",
        parameters: {
          type: "object",
          properties: { id: { type: "string" }, name: { type: "string" }, verbose: { type: "boolean" } },
          anyOf: [
            { properties: { id: { type: "string" } }, required: ["id"] },
            { properties: { name: { type: "string" } }, required: ["name"] },
          ],
        },
      },
    ];
    expect(parseTextToolCalls("<lookup><id>7</id><verbose>true</verbose></lookup>", open).errors).toEqual([]);
    expect(parseTextToolCalls("<lookup><verbose>true</verbose></lookup>", open).errors).toEqual(["<lookup> matches none of its argument sets (id | name)"]);
    expect(buildToolCallGrammar(open, { choice: "required", scope: "reply", schema: true })).toMatch(
      /tool-lookup ::= "<lookup>" nl \(param-lookup-1-name\? param-lookup-1-verbose\? param-lookup-1-id \| param-lookup-2-id\? param-lookup-2-verbose\? param-lookup-2-name\)/,
    );
  });

  it("the parser refuses a call that fits no set: neither, a mix, or half of one", () => {
    expect(parseTextToolCalls("<replace_in_file><path>a</path><diff>d</diff></replace_in_file>", edit).errors).toEqual([]);
    expect(parseTextToolCalls("<replace_in_file><path>a</path><search>s</search><replace></replace></replace_in_file>", edit).errors).toEqual([]);
    for (const body of ["<path>a</path>", "<path>a</path><search>s</search>", "<path>a</path><diff>d</diff><search>s</search><replace>r</replace>"]) {
      expect(parseTextToolCalls(`<replace_in_file>${body}</replace_in_file>`, edit).errors, body).toEqual(["<replace_in_file> matches none of its argument sets (path+diff | path+search+replace)"]);
    }
  });
});

describe("the reply's token budget (maxReplyTokens)", () => {
  it("a call's strings share what its tags and other values leave of the budget; one-line strings within their maxLength, the body takes the rest", () => {
    const tools: ChatTool[] = [
      {
        name: "write_file",
        description: "",
        parameters: { type: "object", properties: { path: { type: "string", minLength: 1, maxLength: 160 }, content: { type: "string", maxLength: 4194304 } }, required: ["path", "content"] },
      },
    ];
    const grammar = buildToolCallGrammar(tools, { choice: "required", scope: "reply", schema: true, maxReplyTokens: 100 });
    // 100 − (2 + "<write_file>\n</write_file>" + "<path></path>\n" + 2 + "<content></content>\n" + 2) − 1 = 33 characters for the strings:
    // the path takes at most half (16), the content the remaining 17.
    expect(grammar).toContain('param-write-file-path ::= "<path>" "\\n"? visible [^<\\n]{0,15} "\\n"? "</path>" nl');
    expect(grammar).toContain('param-write-file-content ::= "<content>" body-content-n17 "</content>" nl');
    const roomy = buildToolCallGrammar(tools, { choice: "required", scope: "reply", schema: true, maxReplyTokens: 512 });
    // With room, the path keeps its own bound (160) and the content takes what is left: 512 − 66 − 1 − 160 = 285.
    expect(roomy).toContain("visible [^<\\n]{0,159}");
    expect(roomy).toContain("body-content-n285");
    // Without a budget the body stays unbounded.
    expect(buildToolCallGrammar(tools, { choice: "required", scope: "reply", schema: true })).toContain('"<content>" body-content "</content>"');
  });
});

describe("parseTextToolCalls", () => {
  it("parses prose then calls", () => {
    const parsed = parseTextToolCalls("Let me look.\n<read_file>\n<path>src/a.ts</path>\n<offset>3</offset>\n</read_file>\n<git_status>\n</git_status>", tools);
    expect(parsed.errors).toEqual([]);
    expect(parsed.prose).toBe("Let me look.\n");
    expect(parsed.calls).toEqual([
      { name: "read_file", arguments: { path: "src/a.ts", offset: "3" } },
      { name: "git_status", arguments: {} },
    ]);
  });

  it("reports unclosed blocks, unknown and missing parameters, and trailing text", () => {
    expect(parseTextToolCalls("<read_file><path>a</path>", tools).errors).toEqual(["<read_file> is not closed"]);
    expect(parseTextToolCalls("<read_file><nope>a</nope></read_file>", tools).errors).toEqual(["<read_file> has no parameter nope", "<read_file> misses path"]);
    expect(parseTextToolCalls("<git_status></git_status> and more", tools).errors[0]).toMatch(/unexpected text/);
    // Whitespace after the last call is not an error (measured: SmolLM2 ends calls with "\n\n").
    expect(parseTextToolCalls("<git_status></git_status>\n\n", tools)).toMatchObject({ errors: [], calls: [{ name: "git_status" }] });
  });
});

describe("path choices (the path_grammar strategy)", () => {
  const pathTools: ChatTool[] = [
    { name: "read_file", description: "", parameters: { type: "object", properties: { path: { type: "string", minLength: 1, maxLength: 4096 } }, required: ["path"] } },
    {
      name: "write_file",
      description: "",
      parameters: { type: "object", properties: { path: { type: "string", minLength: 1, maxLength: 4096 }, content: { type: "string", maxLength: 1_000_000 } }, required: ["path", "content"] },
    },
    { name: "list_dir", description: "", parameters: { type: "object", properties: { path: { type: "string", minLength: 1, maxLength: 4096 } } } },
  ];
  const long = `src/${"a".repeat(300)}.js`;
  const paths = { choices: ["src/a.js", "src/a.js", "docs/", "two words.md", long], tools: ["read_file"], newPathTools: ["write_file"] };

  it("a listed tool's path is one of the files that fit the call's budget; a creating tool's also a plain relative path; other tools keep their rule", () => {
    const grammar = buildToolCallGrammar(pathTools, { choice: "required", scope: "reply", schema: true, maxReplyTokens: 200, paths });
    expect(grammar).toContain('param-read-file-path ::= "<path>" ("src/a.js") "</path>" nl');
    expect(grammar).toMatch(/param-write-file-path ::= "<path>" \("src\/a\.js" \| \(\[A-Za-z0-9_\] \[A-Za-z0-9_\.\/-\]\{0,\d+\}\)\) "<\/path>" nl/);
    // A directory, a choice with a space, and one longer than the budget leaves a path are not spelled.
    expect(grammar).not.toContain("docs/");
    expect(grammar).not.toContain("two words");
    expect(grammar).not.toContain(long);
    expect(grammar).toMatch(/param-list-dir-path ::= "<path>" "\\n"\? visible/);
  });

  it("a folder tool's path is one of the listed folders (`.` the root; a trailing `/` dropped, a folder with a space left out)", () => {
    const folders = { ...paths, directories: [".", "src/", "docs", "two words"], directoryTools: ["list_dir"] };
    const grammar = buildToolCallGrammar(pathTools, { choice: "required", scope: "reply", schema: true, maxReplyTokens: 200, paths: folders });
    expect(grammar).toContain('param-list-dir-path ::= "<path>" ("." | "src" | "docs") "</path>" nl');
    // The file tools are unchanged by the folders.
    expect(grammar).toContain('param-read-file-path ::= "<path>" ("src/a.js") "</path>" nl');
    // No folder to name: the folder tool keeps its own rule.
    const none = buildToolCallGrammar(pathTools, { choice: "required", scope: "reply", schema: true, maxReplyTokens: 200, paths: { ...folders, directories: ["two words"] } });
    expect(none).toMatch(/param-list-dir-path ::= "<path>" "\\n"\? visible/);
  });

  it("with no listed file a reading tool keeps its own rule", () => {
    const grammar = buildToolCallGrammar(pathTools, { choice: "required", scope: "reply", schema: true, maxReplyTokens: 200, paths: { choices: [], tools: ["read_file"], newPathTools: [] } });
    expect(grammar).toMatch(/param-read-file-path ::= "<path>" "\\n"\? visible/);
  });
});

describe("required parameters only (the lean_calls strategy)", () => {
  it("spells each call's required parameters and leaves the optional ones out", () => {
    const grammar = buildToolCallGrammar(tools, { choice: "required", scope: "reply", schema: true, maxReplyTokens: 200, requiredOnly: true });
    expect(grammar).toContain('tool-read-file ::= "<read_file>" nl param-read-file-path "</read_file>"');
    expect(grammar).not.toContain("param-read-file-offset");
    // A tool with no required parameter is its bare tags.
    expect(grammar).toContain('tool-git-status ::= "<git_status>" nl  "</git_status>"');
    expect(buildToolCallGrammar(tools, { choice: "required", scope: "reply", schema: true, maxReplyTokens: 200 })).toContain("param-read-file-offset?");
  });
});
