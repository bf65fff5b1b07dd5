import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { InstructionsPolicySchema, type AutoApprove } from "@aide/contracts";

/**
 * The approval policy of `aide run`, as a config file holds it (`--config FILE`, else
 * `$AIDE_HOME/run.json` when it exists). Flags use the same names with dashes; a flag wins over
 * the file, and `--allow-command` adds to the file's list. Unknown keys are refused, so a typo
 * is not a silently ignored rule.
 */
export const RunPolicyFileSchema = z
  .object({
    allow_command: z.array(z.string().trim().min(1).max(200)).max(100).optional(),
    auto_approve: z.enum(["reads", "edits", "all"]).optional(),
    deny_rest: z.boolean().optional(),
    /** Seconds each approval waits before it is denied. */
    approval_timeout: z.number().int().positive().max(86_400).optional(),
    /**
     * Project instructions (AGENTS.md…): ask (default), trust what is found, or ignore them. Read by
     * `aide up` (the stack's orchestrator gets it as AIDE_INSTRUCTIONS), not per run.
     */
    instructions: InstructionsPolicySchema.optional(),
  })
  .strict();
export type RunPolicyFile = z.infer<typeof RunPolicyFileSchema>;

export interface RunPolicy {
  autoApprove?: AutoApprove;
  approvalTimeoutSeconds?: number;
}

/** A policy that cannot be used: the message names the file (or flag) and the field. */
export class RunPolicyError extends Error {}

function describeIssues(source: string, error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.length > 0 ? issue.path.map(String).join(".") : "(top level)";
      const keys = issue.code === "unrecognized_keys" ? ` (${issue.keys.join(", ")}; known: ${Object.keys(RunPolicyFileSchema.shape).join(", ")})` : "";
      return `${source}: field ${field}: ${issue.message}${keys}`;
    })
    .join("\n");
}

/** The config file's policy: `explicit` must exist; the default `$AIDE_HOME/run.json` may be absent. */
export function loadRunPolicyFile(explicit: string | undefined, home: string): RunPolicyFile {
  const path = explicit ?? join(home, "run.json");
  if (!existsSync(path)) {
    if (explicit !== undefined) throw new RunPolicyError(`--config ${path}: no such file`);
    return {};
  }
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new RunPolicyError(`${path}: not valid JSON: ${(error as Error).message}`);
  }
  const parsed = RunPolicyFileSchema.safeParse(json);
  if (!parsed.success) throw new RunPolicyError(describeIssues(path, parsed.error));
  return parsed.data;
}

/** The flags' policy, validated by the same schema (so a flag error names the flag's field too). */
export function runPolicyFromFlags(flags: { allowCommand: string[]; autoApprove?: string; denyRest: boolean; approvalTimeout?: string }): RunPolicyFile {
  const candidate = {
    ...(flags.allowCommand.length > 0 ? { allow_command: flags.allowCommand } : {}),
    ...(flags.autoApprove !== undefined ? { auto_approve: flags.autoApprove } : {}),
    ...(flags.denyRest ? { deny_rest: true } : {}),
    ...(flags.approvalTimeout !== undefined ? { approval_timeout: /^\d+$/.test(flags.approvalTimeout) ? Number(flags.approvalTimeout) : flags.approvalTimeout } : {}),
  };
  const parsed = RunPolicyFileSchema.safeParse(candidate);
  if (!parsed.success) throw new RunPolicyError(describeIssues("flags", parsed.error).replace(/field (\w+)/g, (_, name: string) => `--${name.replace(/_/g, "-")}`));
  return parsed.data;
}

/**
 * File and flags combined into what the start request carries. `reads` is the default (read-only
 * tools never ask); `edits` adds writes; `all` adds every plain command too. No `auto_approve`
 * is sent when nothing was asked for, so the orchestrator's defaults apply.
 */
export function combineRunPolicy(file: RunPolicyFile, flags: RunPolicyFile): RunPolicy {
  const level = flags.auto_approve ?? file.auto_approve;
  const commands = [...new Set([...(file.allow_command ?? []), ...(flags.allow_command ?? [])])];
  const denyRest = flags.deny_rest ?? file.deny_rest ?? false;
  const timeout = flags.approval_timeout ?? file.approval_timeout;
  const anyRule = level !== undefined || commands.length > 0 || denyRest;
  return {
    ...(anyRule
      ? {
          autoApprove: {
            edits: level === "edits" || level === "all",
            commands,
            ...(level === "all" ? { all: true } : {}),
            ...(denyRest ? { deny_unmatched: true } : {}),
          },
        }
      : {}),
    ...(timeout !== undefined ? { approvalTimeoutSeconds: timeout } : {}),
  };
}
