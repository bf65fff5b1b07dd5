import {
  AbortRequestSchema,
  DecisionRequestSchema,
  InstructionsForgetRequestSchema,
  InstructionsListRequestSchema,
  MessageRequestSchema,
  ModeRequestSchema,
  RestoreRequestSchema,
  SessionRequestSchema,
  SessionsRequestSchema,
  StartRequestSchema,
  renderUntrustedValue,
  subjects,
} from "@aide/contracts";
import { defineEndpoint, type Endpoint } from "@aide/runtime";
import type { Orchestrator } from "../orchestrator.js";
import { abortRun } from "./abort-run.js";
import { changeMode } from "./change-mode.js";
import { checkStartModel } from "./check-start-model.js";
import { decideApproval } from "./decide-approval.js";
import { forgetInstructions, listInstructions } from "./instructions-commands.js";
import { restoreCheckpoint } from "./restore-checkpoint.js";
import { listSessions } from "./list-sessions.js";
import { sendMessage } from "./send-message.js";
import { sessionSnapshot } from "./session-snapshot.js";
import { isJetStreamOutage, storeUnavailable } from "../bus/jetstream-errors.js";

/**
 * Every `agent.cmd.*` subject, answered in the service's queue group. A JetStream failure that
 * escapes a handler (a timeout, no responders: the store or stream is away) is answered as
 * UNAVAILABLE with a retry hint, never INTERNAL. Every answer's strings (tasks, results, paths,
 * messages) are screen renderings, as every event's are: a client shows them as they come.
 */
export function commandEndpoints(orchestrator: Orchestrator): Endpoint[] {
  return endpointList(orchestrator).map((endpoint) => ({
    ...endpoint,
    handle: (request, context) =>
      Promise.resolve(endpoint.handle(request, context)).then(
        (result: unknown) => renderAnswer(result),
        (error: unknown) => {
          throw isJetStreamOutage(error) ? storeUnavailable(error, "session store or event stream") : error;
        },
      ),
  }));
}

/**
 * An answer with every string rendered for screens (`renderUntrusted`), but a `workspace`: it is
 * the address the gateway and clients reach the tools and checkpoints services by, so it stays
 * exact (the bus codec still writes its control and invisible characters as `\uXXXX`).
 */
function renderAnswer(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(renderAnswer);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [renderUntrustedValue(key).value, key === "workspace" && typeof inner === "string" ? inner : renderAnswer(inner)]));
  }
  return renderUntrustedValue(value).value;
}

function endpointList(orchestrator: Orchestrator): Endpoint[] {
  return [
    defineEndpoint({
      name: "start",
      subject: subjects.cmd.start,
      schema: StartRequestSchema,
      async handle(request) {
        await checkStartModel(orchestrator.seams.model, request.model ?? orchestrator.seams.config.defaultModel);
        const record = await orchestrator.start(request);
        return { session: record.id, run: record.run, state: record.state };
      },
    }),
    defineEndpoint({
      name: "decision",
      subject: subjects.cmd.decision,
      schema: DecisionRequestSchema,
      handle: (request) => decideApproval(orchestrator, request),
    }),
    defineEndpoint({
      name: "abort",
      subject: subjects.cmd.abort,
      schema: AbortRequestSchema,
      handle: (request) => abortRun(orchestrator, request.session, request.reason),
    }),
    defineEndpoint({
      name: "message",
      subject: subjects.cmd.message,
      schema: MessageRequestSchema,
      handle: (request) => sendMessage(orchestrator, request),
    }),
    defineEndpoint({
      name: "mode",
      subject: subjects.cmd.mode,
      schema: ModeRequestSchema,
      handle: (request) => changeMode(orchestrator, request.session, request.mode),
    }),
    defineEndpoint({
      name: "status",
      subject: subjects.cmd.status,
      schema: SessionRequestSchema,
      async handle(request) {
        const runtime = await orchestrator.load(request.session);
        return sessionSnapshot(runtime.record);
      },
    }),
    defineEndpoint({
      name: "sessions",
      subject: subjects.cmd.sessions,
      schema: SessionsRequestSchema,
      handle: (request) => listSessions(orchestrator, request),
    }),
    defineEndpoint({
      name: "restore",
      subject: subjects.cmd.restore,
      schema: RestoreRequestSchema,
      handle: (request) => restoreCheckpoint(orchestrator, request),
    }),
    defineEndpoint({
      name: "instructions",
      subject: subjects.cmd.instructions,
      schema: InstructionsListRequestSchema,
      handle: (request) => listInstructions(orchestrator, request),
    }),
    defineEndpoint({
      name: "instructions_forget",
      subject: subjects.cmd.instructionsForget,
      schema: InstructionsForgetRequestSchema,
      handle: (request) => forgetInstructions(orchestrator, request),
    }),
  ];
}
