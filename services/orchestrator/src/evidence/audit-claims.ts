import type { EvidenceEvent, UnbackedClaim } from "./evidence-kind.js";
import { COMMAND_TOOLS, EXECUTION_TOOLS, MUTATION_TOOLS, commandOf, describeEvent, mutatedPaths, normalizePath, succeeded, whyNotRun, exitCode } from "./event-facts.js";
import { extractClaims, type Claim } from "./extract-claims.js";
import { outputContainsNumber } from "./measurements.js";

/** A claim of the completion that no successful event of the run backs, with what the events do show. */

export type ClaimsAudit = {
  claims: Claim[];
  unbacked: UnbackedClaim[];
  /** For the model's instruction: each unbacked quote with only its reason, and the run's events once. */
  reasons: Array<{ quote: string; reason: string }>;
  summary: string;
};

/** The run's tool events: the calls that ran (any result) and the proposed calls that never ran. */
export type AuditEvents = { ran: EvidenceEvent[]; notRun: EvidenceEvent[] };

const TEST_COMMAND = /\b(test|tests|spec|jest|vitest|mocha|ava|tap|pytest|unittest|rspec|phpunit|ctest|check)\b|--test\b|\.(test|spec)\.|_test\.|\btest_\w+|\bgo test\b|\bcargo test\b/i;
const DOCUMENT_PATH = /\.(md|markdown|txt|rst|adoc)$/i;
/** Words on an output line that make a number on it a test-result count. */
const COUNT_CONTEXT = /test|pass|fail|ok\b|error|warn|suite|spec|assert|case|check|skip|todo|total|problem/i;
const FAILURE_NOUN = /^(failures?|failing|failed|errors?|warnings?)$/;

/** One spelling per command: `npm run test` = `npm t` = `npm test`, whitespace folded, `cd x &&` dropped. */
function normalizeCommand(command: string): string {
  return command
    .trim()
    .replace(/\s+/g, " ")
    .replace(/^(?:cd [^&;]+(?:&&|;)\s*)+/, "")
    .replace(/\b(npm|pnpm|yarn) (?:run test|t)\b/g, "$1 test")
    .replace(/^\.\/node_modules\/\.bin\//, "npx ");
}

/** True when the command that ran is the cited one (the citation may leave out trailing arguments). */
function sameCommand(ran: string, cited: string): boolean {
  const left = ` ${normalizeCommand(ran)} `;
  const right = ` ${normalizeCommand(cited)} `;
  return left.includes(right) || left.includes(` npx${right}`);
}

function runsOf(events: EvidenceEvent[], command: string | undefined): EvidenceEvent[] {
  if (command === undefined) return events.filter((event) => EXECUTION_TOOLS.has(event.tool));
  return events.filter((event) => {
    const ran = commandOf(event);
    return ran !== undefined && sameCommand(ran, command);
  });
}

function quoteCommand(command: string): string {
  return `\`${command.slice(0, 120)}\``;
}

/** What the events show about commands: what ran, and what was proposed but never ran. */
function commandsShown(events: AuditEvents, command?: string): string {
  const ran = events.ran.filter((event) => COMMAND_TOOLS.has(event.tool)).map(describeEvent);
  const blocked = events.notRun.filter((event) => {
    const proposed = commandOf(event);
    return proposed !== undefined && (command === undefined || sameCommand(proposed, command));
  });
  const ranText = ran.length === 0 ? "no command ran in this run" : `commands that ran: ${ran.slice(-6).join("; ")}`;
  const blockedText = blocked.map((event) => `${quoteCommand(commandOf(event) ?? "")} was proposed but ${whyNotRun(event)}`);
  return [ranText, ...blockedText.slice(-3)].join("; ");
}

function filesShown(events: AuditEvents, path?: string): string {
  const changed = [...new Set(events.ran.filter(succeeded).flatMap(mutatedPaths))];
  const changedText = changed.length === 0 ? "no file was changed in this run" : `files changed in this run: ${changed.slice(0, 12).join(", ")}`;
  const blocked = events.notRun
    .concat(events.ran.filter((event) => !succeeded(event)))
    .filter((event) => MUTATION_TOOLS.has(event.tool) && (path === undefined || mutatedPaths(event).some((candidate) => samePath(candidate, path))))
    .map((event) => `${event.tool} ${mutatedPaths(event).join(", ")} was ${event.metadata["denied"] !== undefined || event.metadata["refused"] === true ? whyNotRun(event) : "attempted but failed"}`);
  return [changedText, ...blocked.slice(-3)].join("; ");
}

/** `slug.ts` names `src/slug.ts`; a path cited with folders must match them. */
function samePath(changed: string, cited: string): boolean {
  const left = normalizePath(changed);
  const right = normalizePath(cited);
  return left === right || left.endsWith(`/${right}`);
}

/** The run that backs a "tests pass" claim: the last test run (or, when none looks like a test, the last command). */
function lastTestRun(events: EvidenceEvent[], command: string | undefined): EvidenceEvent | undefined {
  const runs = runsOf(events, command).filter((event) => COMMAND_TOOLS.has(event.tool) || command === undefined);
  const tests = runs.filter((event) => TEST_COMMAND.test(commandOf(event) ?? ""));
  const candidates = command !== undefined || tests.length === 0 ? runs : tests;
  return candidates[candidates.length - 1];
}

type Finding = { reason: string; about: "commands" | "files" };

function check(claim: Claim, events: AuditEvents): Finding | undefined {
  const commands = (reason: string): Finding => ({ reason, about: "commands" });
  switch (claim.kind) {
    case "command": {
      if (runsOf(events.ran, claim.command).length > 0) return undefined;
      return commands(`${quoteCommand(claim.command)} never ran in this run`);
    }
    case "tests_pass": {
      const run = lastTestRun(events.ran, claim.command);
      if (run === undefined) return commands(`no ${claim.command ? quoteCommand(claim.command) : "test command"} ran in this run`);
      if (!succeeded(run)) return commands(`the last test run ${describeEvent(run)}, so the tests do not pass`);
      const later = events.ran.find((event) => event.seq > run.seq && MUTATION_TOOLS.has(event.tool) && succeeded(event) && mutatedPaths(event).some((path) => !DOCUMENT_PATH.test(path)));
      if (later !== undefined) return commands(`${describeEvent(later)} changed the code after the last passing test run (${describeEvent(run)}); run the tests again`);
      return undefined;
    }
    case "count": {
      const runs = runsOf(events.ran, claim.command);
      if (claim.number === 0 && FAILURE_NOUN.test(claim.noun) && runs.some(succeeded)) return undefined;
      const backed = runs.some((event) => event.output.split("\n").some((line) => COUNT_CONTEXT.test(line) && outputContainsNumber(line, String(claim.number))));
      if (backed) return undefined;
      if (runs.length === 0) return commands(`no ${claim.command ? quoteCommand(claim.command) : "command"} ran in this run, so no output reports that count`);
      return commands(`no output of ${runs.slice(-3).map(describeEvent).join("; ")} reports ${claim.number} ${claim.noun}`);
    }
    case "exit_code": {
      const runs = runsOf(events.ran, claim.command).filter((event) => COMMAND_TOOLS.has(event.tool));
      if (runs.some((event) => exitCode(event) === claim.code)) return undefined;
      return commands(`no ${claim.command ? quoteCommand(claim.command) : "command"} exited with ${claim.code} in this run`);
    }
    case "file_changed": {
      const changed = events.ran.filter(succeeded).flatMap(mutatedPaths);
      if (changed.some((path) => samePath(path, claim.path))) return undefined;
      return { reason: `${claim.path} was not changed in this run`, about: "files" };
    }
    default: {
      const exhaustive: never = claim;
      return String(exhaustive) as never;
    }
  }
}

/**
 * The claims audit: every result the completion text claims — commands run, tests
 * passing, test counts, exit codes, files changed — must match a real event of this run. A claim
 * without one is quoted with what the events show instead (`events_show`: the reason, then the
 * commands or files of the run that bear on it); `summary` is the run's commands and files once.
 */
export function auditClaims(completionText: string, events: AuditEvents): ClaimsAudit {
  const claims = extractClaims(completionText);
  const unbacked: UnbackedClaim[] = [];
  const reasons: Array<{ quote: string; reason: string }> = [];
  for (const claim of claims) {
    const finding = check(claim, events);
    if (finding === undefined) continue;
    const shown = finding.about === "files" ? filesShown(events, claim.kind === "file_changed" ? claim.path : undefined) : commandsShown(events, "command" in claim ? claim.command : undefined);
    const earlier = reasons.find((entry) => entry.quote === claim.quote);
    if (earlier !== undefined) {
      // One line per quoted claim ("20 tests passed" is both a count and a pass claim).
      if (!earlier.reason.includes(finding.reason)) earlier.reason += `; ${finding.reason}`;
      continue;
    }
    reasons.push({ quote: claim.quote, reason: finding.reason });
    unbacked.push({ kind: claim.kind, quote: claim.quote, events_show: `${finding.reason}; ${shown}` });
  }
  return { claims, unbacked, reasons, summary: `${commandsShown(events)}; ${filesShown(events)}` };
}
