import { parseCommandRule, workspaceScriptOf, type AutoApprove, type Mode, type ToolDescriptor, type ToolPreview } from "@aide/contracts";

export type NetworkLevel = "none" | "consent_required" | "forbidden";

/** What the gate does with one call. Computed by code from the tool, its preview and the session's rules. */
export type GateVerdict =
  | { kind: "allow"; reason: "read_only" }
  | { kind: "auto"; reason: "edit_rule" | "command_rule" }
  | { kind: "ask"; needsProtectedConfirmation: boolean }
  | { kind: "refuse"; message: string };

export interface GateInput {
  descriptor: ToolDescriptor;
  mode: Mode;
  preview?: ToolPreview;
  network: NetworkLevel;
  autoApprove: AutoApprove;
  /** A child agent without write access. */
  readOnlyAgent?: boolean;
}

const shellControl = /[;&|`$<>(){}\n\\]/;

/**
 * A command matches an allow-listed prefix when its leading words equal the prefix's words and
 * it has no shell control characters (so `npm test; curl x` never rides on an `npm test` rule).
 * A command that runs code the workspace defines (`npm test`, `make build`, `cargo build`: see
 * `workspaceScriptOf`) matches only a rule that names that exact script (`npm` or `npm run` does
 * not cover `npm run build`; `npm run build` does) and records the digest of the script text the
 * person saw (`npm run build sha256:<digest>`, see `parseCommandRule`): equal to `scriptsDigest`,
 * the digest of what the command would run now. A rule without one, or a changed or unseen
 * script, does not match: the command asks, showing the script.
 */
export function commandMatchesPrefix(command: string, prefixes: string[], scriptsDigest?: string): boolean {
  const trimmed = command.trim();
  if (trimmed === "" || shellControl.test(trimmed)) return false;
  const words = trimmed.split(/\s+/);
  const script = workspaceScriptOf(trimmed);
  return prefixes.some((prefix) => {
    const rule = parseCommandRule(prefix);
    if (script !== undefined && (rule.words.length < script.words || rule.scriptsDigest === undefined || rule.scriptsDigest !== scriptsDigest)) return false;
    return rule.words.length > 0 && rule.words.every((word, index) => words[index] === word);
  });
}

/**
 * The approval policy. Read-only tools pass; mutations wait for a person unless an auto-approve
 * rule covers them; protected paths, invisible characters and network use always ask. The model's
 * own `requires_approval` hint plays no part here.
 */
export function decideGate(input: GateInput): GateVerdict {
  const { descriptor, mode, preview } = input;
  if (descriptor.read_only) return { kind: "allow", reason: "read_only" };
  if (mode === "plan") {
    return {
      kind: "refuse",
      message: `${descriptor.name} changes the workspace and is not available in Plan mode. Use read-only tools to plan, then call switch_to_act_mode with your plan; a person approves the switch.`,
    };
  }
  if (input.readOnlyAgent) {
    return { kind: "refuse", message: `${descriptor.name} is not available: this agent was started read-only.` };
  }
  if (input.network === "forbidden") {
    return { kind: "refuse", message: "FORBIDDEN: this command uses the network in a way the policy never allows; it was not run." };
  }
  if (!preview) return { kind: "ask", needsProtectedConfirmation: false };
  const needsProtectedConfirmation = preview.protected.length > 0;
  const risky = needsProtectedConfirmation || preview.invisible.length > 0 || input.network !== "none";
  if (!risky) {
    const all = input.autoApprove.all === true;
    if (preview.kind === "write" && (input.autoApprove.edits || all)) return { kind: "auto", reason: "edit_rule" };
    if ((preview.kind === "command" || preview.kind === "process") && preview.command !== undefined) {
      if (all) return { kind: "auto", reason: "command_rule" };
      if (commandMatchesPrefix(preview.command, input.autoApprove.commands, preview.scripts_digest)) return { kind: "auto", reason: "command_rule" };
    }
  }
  return { kind: "ask", needsProtectedConfirmation };
}
