/**
 * The result claims a completion text makes that events can confirm or refute: commands run,
 * tests passing, counts from test output, exit codes, files changed. Extraction is deliberately
 * narrow (English phrasings; a claim must be stated, not proposed, negated or hypothetical), so an
 * honest completion is never rejected for wording the audit cannot check.
 */
export type Claim =
  | { kind: "command"; quote: string; command: string }
  | { kind: "tests_pass"; quote: string; command?: string }
  | { kind: "count"; quote: string; number: number; noun: string; command?: string }
  | { kind: "exit_code"; quote: string; code: number; command?: string }
  | { kind: "file_changed"; quote: string; path: string };

const RUNNERS =
  "npx|npm|pnpm|yarn|node|deno|bun|tsx|tsc|jest|vitest|mocha|ava|tap|pytest|python|python3|pip|cargo|go|make|cmake|ctest|gradle|gradlew|mvn|dotnet|ruby|rake|bundle|rspec|php|phpunit|composer|bash|sh|eslint|prettier|git|ls|cat|grep|rg|diff|\\./[\\w./-]+";
const RUNNER_START = new RegExp(`^(?:${RUNNERS})(?:\\s|$)`);
/** Verbs that state a command was run, before it ("ran `npx ava`"). */
const RAN_BEFORE = /\b(?:ran|re-?ran|running|executed|executing|invoked|via|with|using)\s+(?:(?:the|a|an)\s+)?(?:command\s+)?$/i;
/**
 * Words that state a result after a command ("`node --test` passes", "npx ava: 20 tests passed").
 * Present-tense descriptions ("`npm test` runs ava", "`cli --help` prints usage") are not results;
 * after a colon or a dash only result words make it one ("`npm test`: runs ava" explains a script).
 */
const RESULT_AFTER =
  /^\s*(?:(?::|—|-|→|=>)\s*[^,;.]*?\b(?:pass|passes|passed|passing|fail|fails|failed|failing|ok|exit|exited|succeeded|green|errors?|\d+\s+tests?)\b|(?:now\s+|still\s+)?(?:passes|passed|succeeds|succeeded|exited|returned|reported|printed|showed|fails|failed|is green|runs clean|is clean|completed|finished)\b)/i;

/** Before a claim in its clause: negations, modals, proposals, and subordinate clauses (not the agent's own result). */
const NEGATION =
  /\b(?:not|never|no|none|without|didn't|don't|doesn't|haven't|hasn't|wasn't|weren't|couldn't|cannot|can't|can|unable|won't|should|would|could|might|may|must|need|needs|needed|please|will|want|wanted|tried|try|attempted|proposed|propose|suggest|suggested|recommend|if|once|until|unless|before|when|whenever|since|because|you|your)\b[^,.;:!?]*$/i;
/** A change claim is the agent's own action: the verb opens its clause, follows I/we, or is coordinated with an earlier one. */
const OWN_ACTION = /(?:^|\b(?:and|then|also|so|now|finally|first|next)\b|,)\s*(?:(?:i|we)(?:'ve|\s+have|\s+had)?\s+)?(?:(?:also|then|now|just|finally|successfully)\s+)?$/i;

const CHANGE_VERBS =
  "fixed|updated|changed|modified|edited|patched|rewrote|rewritten|wrote|written|created|added|removed|deleted|renamed|moved|replaced|refactored|implemented|corrected|adjusted|amended|tweaked|saved|repaired|cleaned up|reworked";
const PATH =
  "(?:[\\w@.-]+\\/)*[\\w@-][\\w@.-]*\\.(?:[cm]?[jt]sx?|json|md|markdown|txt|py|go|rs|rb|java|kt|kts|c|h|cc|cpp|hpp|cs|swift|php|sh|bash|zsh|ya?ml|toml|ini|cfg|conf|html?|css|scss|sass|less|vue|svelte|sql|lock|xml|csv|env|gradle|lua|dart|exs?|r|jl|scala|pl|ps1|rst|adoc|mk|proto|graphql|snap)";
const PATH_TOKEN = `\`?(${PATH})\`?(?![\\w/-])`;
const FILE_DIRECT = new RegExp(`\\b(${CHANGE_VERBS})\\s+(?:(?:the|a|an)\\s+)?(?:files?\\s+)?${PATH_TOKEN}`, "gi");
const FILE_PREPOSITION = new RegExp(`\\b(${CHANGE_VERBS})\\b[^.;:!?\\n]{1,80}?\\s(?:in|inside|within|into|to)\\s+(?:(?:the|a)\\s+)?(?:file\\s+)?${PATH_TOKEN}`, "gi");
const FILE_REMOVED_FROM = new RegExp(`\\b(removed|deleted|dropped)\\b[^.;:!?\\n]{1,80}?\\sfrom\\s+(?:(?:the)\\s+)?(?:file\\s+)?${PATH_TOKEN}`, "gi");
const FILE_PASSIVE = new RegExp(`${PATH_TOKEN}\\s+(?:was|is|has been|have been|got|is now)\\s+(?:now\\s+)?(${CHANGE_VERBS})\\b`, "gi");

const TESTS_PASS =
  /\b(?:(?:all|the|both|every|each)\s+)?(?:\d+\s+)?(?:(?:unit|integration|e2e|remaining|existing|new)\s+)?(?:tests?|test suite|specs?|test cases?)\s+(?:now\s+|still\s+|all\s+)?(?:pass|passes|passed|are passing|is passing|succeed|succeeds|succeeded|are green|is green|run green)\b/gi;
const COMMAND_PASSES = /^\s*(?:now\s+|still\s+)?(?:passes|passed|succeeds|succeeded|is green|runs clean)\b/i;
/** A count with a result: "20 tests passed", "3 failing", "0 failures"; "the file has 3 tests" is not a result. */
const COUNT =
  /(?<![\w.,/-])(\d+)\s+(?:(?:unit|integration|e2e|new|existing)\s+)?(tests?|specs?|assertions?|test cases?|suites?|failures?|failing|failed|passed|passing|errors?|warnings?)\b(\s+(?:passed|passing|pass|failed|failing|fail|ok|succeeded|ran|run))?/gi;
const RESULT_NOUN = /^(failures?|failing|failed|passed|passing)$/;
/** Past-tense exit statements are claims; the noun forms ("exit 0", "exit code 1") only beside a command that ran. */
const EXIT_CODE_PAST = /\b(?:exited\s+(?:with\s+)?(?:(?:exit\s+)?(?:code|status)\s+)?|(?:returned|finished\s+with|ended\s+with)\s+(?:exit\s+)?(?:code|status)\s+)(\d+)\b/gi;
const EXIT_CODE_NOUN = /\bexit(?:\s+(?:code|status))?\s*(?:was|is|of|=|:)?\s*(\d+)\b/gi;

type Span = { start: number; end: number; command: string; quote: string };

function clauses(text: string): Array<{ text: string; offset: number }> {
  const result: Array<{ text: string; offset: number }> = [];
  const pattern = /[^.;!?\n]+(?:\.(?=\w)[^.;!?\n]*)*/g;
  for (const match of text.matchAll(pattern)) {
    if (match[0].trim() !== "") result.push({ text: match[0], offset: match.index ?? 0 });
  }
  return result;
}

function cleanCommand(command: string): string {
  return command
    .trim()
    .replace(/\s+/g, " ")
    .replace(/[.,;:]+$/, "");
}

/** Commands a sentence says were run: backticked ones next to a run verb or a result word, and bare ones after "ran". */
function commandSpans(sentence: string): Span[] {
  const spans: Span[] = [];
  for (const match of sentence.matchAll(/`([^`\n]{1,200})`/g)) {
    const command = cleanCommand(match[1]);
    const start = match.index ?? 0;
    const end = start + match[0].length;
    if (!RUNNER_START.test(command) && !/^[a-z][\w.-]*\s+-{1,2}\w/.test(command)) continue;
    const before = sentence.slice(0, start);
    if (!RAN_BEFORE.test(before) && !RESULT_AFTER.test(sentence.slice(end))) continue;
    if (NEGATION.test(before)) continue;
    spans.push({ start, end, command, quote: sentence.slice(Math.max(0, before.search(/\S[^,]*$/)), end).trim() || match[0] });
  }
  const bare = new RegExp(
    `(?:\\b(?:ran|re-?ran|executed)\\s+|^\\s*)((?:${RUNNERS})(?:\\s+[^\\s\`,;:()]+){0,4}?)(?=\\s*:|\\s+(?:passes|passed|succeeds|succeeded|exited|exits|reports|reported|prints|printed|shows|showed|fails|failed)\\b|\\s*[,;.]|\\s+(?:and|then|which|to)\\b|\\s*$)`,
    "g",
  );
  for (const match of sentence.matchAll(bare)) {
    const start = (match.index ?? 0) + match[0].indexOf(match[1]);
    const end = start + match[1].length;
    if (spans.some((span) => start < span.end && end > span.start)) continue;
    const lead = match[0].slice(0, match[0].indexOf(match[1]));
    const after = sentence.slice(end);
    if (lead.trim() === "" && !/^\s*:/.test(after) && !COMMAND_PASSES.test(after)) continue;
    if (NEGATION.test(sentence.slice(0, start))) continue;
    spans.push({ start, end, command: cleanCommand(match[1]), quote: `${lead.trim()} ${match[1]}`.trim() });
  }
  return spans.sort((left, right) => left.start - right.start);
}

/** The command a result in the sentence belongs to: the closest one named before it. */
function commandBefore(spans: Span[], position: number): string | undefined {
  return [...spans].reverse().find((span) => span.end <= position)?.command;
}

function negated(sentence: string, position: number): boolean {
  return NEGATION.test(sentence.slice(0, position));
}

function fileClaims(sentence: string): Claim[] {
  const claims: Claim[] = [];
  const seen = new Set<string>();
  for (const pattern of [FILE_DIRECT, FILE_PREPOSITION, FILE_REMOVED_FROM, FILE_PASSIVE]) {
    for (const match of sentence.matchAll(pattern)) {
      const path = pattern === FILE_PASSIVE ? match[1] : match[2];
      const at = match.index ?? 0;
      if (path === undefined || seen.has(path) || negated(sentence, at)) continue;
      if (pattern !== FILE_PASSIVE && !OWN_ACTION.test(sentence.slice(0, at))) continue;
      if (/^\d+(\.\d+)+$/.test(path)) continue;
      seen.add(path);
      claims.push({ kind: "file_changed", quote: match[0].trim(), path: path.replace(/^`|`$/g, "") });
    }
  }
  return claims;
}

export function extractClaims(completionText: string): Claim[] {
  const claims: Claim[] = [];
  for (const { text: sentence } of clauses(completionText)) {
    const spans = commandSpans(sentence);
    for (const span of spans) {
      claims.push({ kind: "command", quote: span.quote, command: span.command });
      if (COMMAND_PASSES.test(sentence.slice(span.end))) {
        const passed = sentence.slice(span.end).match(COMMAND_PASSES)?.[0] ?? "";
        claims.push({ kind: "tests_pass", quote: `${sentence.slice(span.start, span.end)}${passed}`.trim(), command: span.command });
      }
    }
    for (const match of sentence.matchAll(COUNT)) {
      const at = match.index ?? 0;
      if (negated(sentence, at) || /\b(?:line|lines|column|col|step|version|v|node|python|item|items|issue|#)\s*$/i.test(sentence.slice(0, at))) continue;
      const noun = match[2].toLowerCase();
      const command = commandBefore(spans, at);
      const isResult = match[3] !== undefined || RESULT_NOUN.test(noun) || command !== undefined;
      // Error and warning counts are results only as "0 errors" or beside a command that ran.
      if (!isResult || (/^(errors?|warnings?)$/.test(noun) && match[1] !== "0" && command === undefined)) continue;
      claims.push({ kind: "count", quote: match[0].trim(), number: Number(match[1]), noun, command });
    }
    for (const match of sentence.matchAll(TESTS_PASS)) {
      const at = match.index ?? 0;
      if (negated(sentence, at)) continue;
      claims.push({ kind: "tests_pass", quote: match[0].trim(), command: commandBefore(spans, at) });
    }
    const exitClaims = new Set<number>();
    for (const pattern of [EXIT_CODE_PAST, EXIT_CODE_NOUN]) {
      for (const match of sentence.matchAll(pattern)) {
        const at = match.index ?? 0;
        const command = commandBefore(spans, at);
        if (exitClaims.has(at) || negated(sentence, at) || (pattern === EXIT_CODE_NOUN && command === undefined && !/\(\s*$/.test(sentence.slice(0, at)))) continue;
        exitClaims.add(at);
        claims.push({ kind: "exit_code", quote: match[0].trim(), code: Number(match[1]), command });
      }
    }
    claims.push(...fileClaims(sentence));
  }
  return claims;
}
