/**
 * Every failure this bench has found, with its fix and the plain regression test that keeps it
 * fixed (the shrunk input, beside the code). The report lists them after each run's own counts.
 */
export interface FuzzFinding {
  target: string;
  input: string;
  failure: string;
  fix: string;
  test: string;
}

export const fuzzFindings: FuzzFinding[] = [
  {
    target: "unified-diff",
    input: 'file "\n ```\n\n", a diff tool\'s patch adding a second " ```" line (context 1); checked on the parser before its fence fix',
    failure: 'applied wrongly within 10 inputs: a context line " ```" (a Markdown file\'s fence) ended the hunk, so its later lines were dropped and only part of the change was written',
    fix: "inside a hunk only a fence at the line's start ends it (fixed with the refused-Markdown-diff report; found again here)",
    test: "services/tools/test/edit-refusals.test.ts, src/edits/parse-unified-diff.test.ts",
  },
  {
    target: "argument-normaliser",
    input: 'diagnostics with {"path": "a", "toString": ""}',
    failure: "threw `shape[key].safeParse is not a function`: `key in shape` saw inherited members (toString, constructor, __proto__) as argument names",
    fix: "normalizeArguments looks up own keys only (Object.hasOwn) for the schema and the alias table; such a name is an unknown argument",
    test: "services/tools/src/framework/tool-schemas.test.ts",
  },
  {
    target: "render-untrusted, bus-codec",
    input: '"\\u{E0080}", "\\u{13438}", "\\u{1D173}", "\\u{1BCA0}", "\\uFFF2", "\\u{E01F0}"',
    failure:
      "left as they were on a screen and raw on the bus: reserved tag and variation-selector code points (U+E0080–E00FF, U+E01F0–E0FFF), U+FFF0–FFF8, and the Egyptian hieroglyph, shorthand and musical format controls, all drawn as nothing",
    fix: "renderUntrusted's candidate set (contracts) covers them; the bus codec escapes them as \\u sequences through the same set",
    test: "contracts/test/render-untrusted.test.ts",
  },
  {
    target: "search-replace",
    input: 'the search/replace arguments {search: "}", replace: ""} on "\\n  }\\n"',
    failure: "applied wrongly: the whole indented line `  }` was removed (matched with its indentation shifted) although the exact text `}` stands once in the file",
    fix: "the arguments form takes whole lines only at the exact tier; otherwise exact text that occurs once comes before any looser line match",
    test: "services/tools/src/edits/apply-search-replace.test.ts",
  },
  {
    target: "search-replace",
    input: 'the search/replace arguments {search: "\\ud83d", replace: ""} on "🙂\\n"',
    failure: "applied wrongly: SEARCH held half of a surrogate pair, matched inside the emoji, and the file was written with U+FFFD",
    fix: "a SEARCH or REPLACE holding a lone surrogate is refused EDIT_MALFORMED",
    test: "services/tools/src/edits/apply-search-replace.test.ts",
  },
  {
    target: "unified-diff",
    input: 'file "\\n\\\\ back\\n\\n", hunk "@@ -40,9 +40,9 @@\\n-\\n" (a diff tool\'s deletion of the first blank line, with wrong @@ numbers)',
    failure: "applied wrongly: the blank line nearest line 40 (the last one) was removed, not the one the diff removed",
    fix: "of several exact occurrences, the @@ numbers choose only the one they name; numbers naming none refuse EDIT_AMBIGUOUS (before: the nearest won)",
    test: "services/tools/src/edits/find-match.test.ts, apply-unified-diff.test.ts",
  },
];

/**
 * Where a property's oracle follows a documented contract rather than the generator's own intent,
 * and why; none of these lets a wrong result pass.
 */
export const fuzzDesignNotes: string[] = [
  "search-replace, whole-line blocks: the intended change is the one the SEARCH/REPLACE format defines (aider's convention, which models are trained on): the first place the SEARCH lines stand exactly is replaced, wherever the generator took them from; a SEARCH of blank lines only is the create form (REPLACE becomes the whole file when it has no content, and is refused when it has).",
  "search-replace, arguments form: SEARCH that is whole lines of the file (a final newline optional) is a line edit with REPLACE read as lines; other text is replaced exactly where it stands (it must stand there once).",
  "search-replace, block text: files hold no marker lines (`=======`, `<<<<<<< SEARCH`): a block cannot say such a line, so the format has no intended change for it.",
  "unified-diff, context lines that lost their space: only lines whose text cannot be read as another kind of line lose it (a text starting with '-', '+', '@', '\\\\', a backtick fence or a blank is ambiguous input: for a bare ``` line the wrapper's closing fence and a slipped context line are the same text).",
  "tool-call-parser, well-formed calls: values hold `<`, `>`, code and markup, but no tag the parser reads as structure (a tool's or parameter's own name): `</path>` inside a path value is ambiguous by the format. One leading and one trailing line break of a value are removed, as documented.",
  "bus-codec: JSON has no negative zero, so -0 comes back as 0; the round trip compares JSON values (0 and -0 equal).",
  "render-untrusted: the emoji variation selectors U+FE00–FE0F and the prepended concatenation marks (U+0600–0605, U+06DD, U+070F, U+0890–0891, U+08E2, U+110BD, U+110CD: format characters drawn as visible signs) are not counted as hidden.",
];
