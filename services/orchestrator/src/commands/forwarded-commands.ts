import type { NatsConnection, Subscription } from "nats";
import type { Logger } from "pino";
import { z } from "zod";
import { AbortRequestSchema, AutoApproveChangeRequestSchema, DecisionRequestSchema, MessageRequestSchema, ModeRequestSchema, aideError, replySchema } from "@aide/contracts";
import { busRequest, decodeJson, encodeJson, errorReply, formatZodError, okReply } from "@aide/runtime";
import type { Orchestrator } from "../orchestrator.js";
import type { ForwardedCommand } from "../run/run-context.js";
import { abortRun } from "./abort-run.js";
import { changeAutoApprove } from "./change-auto-approve.js";
import { changeMode } from "./change-mode.js";
import { decideApproval } from "./decide-approval.js";
import { sendMessage } from "./send-message.js";

/** `agent.orch.<instance>.<command>`: where an instance receives commands for the runs it holds. */
export function instanceSubject(instanceId: string, command: ForwardedCommand): string {
  return `agent.orch.${instanceId}.${command}`;
}

const AnyReplySchema = replySchema(z.unknown());

/** The `forward` seam over the bus. */
export function busForward(connection: NatsConnection): (owner: string, command: ForwardedCommand, body: unknown) => Promise<unknown> {
  return (owner, command, body) => busRequest(connection, instanceSubject(owner, command), body, AnyReplySchema, { timeoutMs: 15_000, service: `orchestrator ${owner}` });
}

const handlers: Record<ForwardedCommand, (orchestrator: Orchestrator, body: unknown) => Promise<unknown>> = {
  decision: (orchestrator, body) => decideApproval(orchestrator, parse(DecisionRequestSchema, body)),
  abort: (orchestrator, body) => {
    const request = parse(AbortRequestSchema, body);
    return abortRun(orchestrator, request.session, request.reason);
  },
  message: (orchestrator, body) => sendMessage(orchestrator, parse(MessageRequestSchema, body)),
  auto_approve: (orchestrator, body) => changeAutoApprove(orchestrator, parse(AutoApproveChangeRequestSchema, body)),
  mode: (orchestrator, body) => {
    const request = parse(ModeRequestSchema, body);
    return changeMode(orchestrator, request.session, request.mode);
  },
};

function parse<S extends z.ZodTypeAny>(schema: S, body: unknown): z.infer<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw aideError("VALIDATION", { detail: formatZodError(parsed.error) });
  return parsed.data;
}

/** Answers commands other instances forward to this one (the runs it holds). */
export function serveForwardedCommands(connection: NatsConnection, orchestrator: Orchestrator, logger: Logger): Subscription {
  return connection.subscribe(`agent.orch.${orchestrator.seams.instanceId}.*`, {
    callback: (error, message) => {
      if (error) return;
      const command = message.subject.split(".").at(-1) as ForwardedCommand;
      const handler = handlers[command];
      void (async () => {
        try {
          if (!handler) throw aideError("UNKNOWN_SUBJECT", { subject: message.subject });
          message.respond(encodeJson(okReply(await handler(orchestrator, decodeJson(message.data)))));
        } catch (failure) {
          logger.info({ err: failure, subject: message.subject }, "forwarded command refused");
          message.respond(encodeJson(errorReply(failure)));
        }
      })();
    },
  });
}
