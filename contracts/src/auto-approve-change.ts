import { z } from "zod";
import { AutoApproveSchema } from "./commands.js";
import { IdSchema, replySchema } from "./reply.js";

/** One command rule as a person types it: words (`npm run lint`), optionally `sha256:<digest>` of a script's text last. */
export const CommandRuleSchema = z
  .string()
  .trim()
  .min(1)
  .max(200)
  // A pattern, not a refinement, so the OpenAPI document says it too (a client generating rules from the spec meets it).
  .regex(/^[^;&|`$<>(){}\n\\]*$/, { message: "a command rule is words only: no shell control characters (a command with them never matches a rule)" })
  .regex(/\S/, { message: "a command rule has at least one word" });

/**
 * `agent.cmd.auto_approve`: changes a session's auto-approve rules while it lives (its current run
 * sees them at the next call). Only `edits` and the command rules are editable: memory changes,
 * protected paths, invisible characters, secret reads and network use keep their own rules and
 * are never covered (no field here reaches them; unknown fields are refused). Additions and
 * removals rather than a whole list, so two screens changing rules at once lose neither change.
 */
export const AutoApproveChangeRequestSchema = z
  .object({
    session: IdSchema,
    edits: z.boolean().optional(),
    add_commands: z.array(CommandRuleSchema).max(100).optional(),
    remove_commands: z.array(z.string().max(200)).max(100).optional(),
  })
  .strict();
export type AutoApproveChangeRequest = z.infer<typeof AutoApproveChangeRequestSchema>;
/**
 * The rules after the change, and `seq`: the session's event seq they are current at (the
 * `session.auto_approve_changed` the change emitted, or the session's last event when nothing
 * changed). A screen that also follows the event stream may get this reply after a newer
 * announcement (another screen's change): it keeps what the highest seq says.
 */
export const AutoApproveChangeReplySchema = replySchema(z.object({ auto_approve: AutoApproveSchema, seq: z.number().int().nonnegative().optional() }));
