import {
  AbortReplySchema,
  AutoApproveChangeReplySchema,
  AutoApproveChangeRequestSchema,
  CostsQuerySchema,
  AbortRequestSchema,
  DecisionReplySchema,
  DecisionRequestSchema,
  InstructionsForgetReplySchema,
  InstructionsForgetRequestSchema,
  InstructionsListReplySchema,
  InstructionsQuerySchema,
  MessageReplySchema,
  MessageRequestSchema,
  ModeReplySchema,
  ModeRequestSchema,
  SessionCostsSchema,
  SessionsQuerySchema,
  SessionsReplySchema,
  StartReplySchema,
  StartRequestSchema,
  StatusQuerySchema,
  StatusReplySchema,
  subjects,
} from "@aide/contracts";
import { defineRoute, resultOf, type RouteDefinition } from "../route-definition.js";
import { sessionCosts } from "../session-costs.js";

const session = ["SESSION_NOT_FOUND"];

/** The agent routes: each validates with the command's contract schema and forwards to the orchestrator. */
export function agentRoutes(): RouteDefinition[] {
  return [
    defineRoute({
      method: "POST",
      url: "/api/agent/start",
      summary: "Start a run (a new session, or a new run of `session`)",
      body: StartRequestSchema,
      reply: resultOf(StartReplySchema),
      errors: ["ALREADY_RUNNING", "WORKSPACE_BUSY", "WORKSPACE_NOT_ALLOWED", "WORKSPACE_NOT_FOUND", "WORKSPACE_TOO_BROAD", "MODEL_NOT_FOUND", "NO_MODEL", ...session],
      // A start may wait out busy downstream services (the orchestrator's start path allows 30 s).
      handle: ({ body }, { bus }) => bus.request(subjects.cmd.start, body, StartReplySchema, { timeoutMs: 45_000 }),
    }),
    defineRoute({
      method: "GET",
      url: "/api/agent/status",
      summary: "A session's snapshot (state, pending approvals, last event seq)",
      query: StatusQuerySchema,
      reply: resultOf(StatusReplySchema),
      errors: session,
      handle: ({ query }, { bus }) => bus.request(subjects.cmd.status, { session: query.id }, StatusReplySchema),
    }),
    defineRoute({
      method: "POST",
      url: "/api/agent/decision",
      summary: "Approve, reject (with feedback) or abort at a pending approval",
      body: DecisionRequestSchema,
      reply: resultOf(DecisionReplySchema),
      errors: ["APPROVAL_NOT_FOUND", "APPROVAL_STALE", "APPROVAL_ALREADY_DECIDED", "APPROVAL_WRONG_SESSION", "APPROVAL_CONFIRMATION_REQUIRED", "APPROVAL_STALE_RUN", "APPROVAL_EXPIRED", "FORBIDDEN", "INSTRUCTIONS_ANSWER_INVALID", ...session],
      handle: ({ body }, { bus }) => bus.request(subjects.cmd.decision, body, DecisionReplySchema),
    }),
    defineRoute({
      method: "POST",
      url: "/api/agent/abort",
      summary: "Abort the session's run",
      body: AbortRequestSchema,
      reply: resultOf(AbortReplySchema),
      errors: ["NOT_RUNNING", ...session],
      handle: ({ body }, { bus }) => bus.request(subjects.cmd.abort, body, AbortReplySchema),
    }),
    defineRoute({
      method: "POST",
      url: "/api/agent/message",
      summary: "Send a follow-up message (starts a new run of the session)",
      body: MessageRequestSchema,
      reply: resultOf(MessageReplySchema),
      errors: ["ALREADY_RUNNING", ...session],
      handle: ({ body }, { bus }) => bus.request(subjects.cmd.message, body, MessageReplySchema),
    }),
    defineRoute({
      method: "POST",
      url: "/api/agent/mode",
      summary: "Switch between plan and act",
      body: ModeRequestSchema,
      reply: resultOf(ModeReplySchema),
      errors: session,
      handle: ({ body }, { bus }) => bus.request(subjects.cmd.mode, body, ModeReplySchema),
    }),
    defineRoute({
      method: "POST",
      url: "/api/agent/auto-approve",
      summary: "Change a session's auto-approve rules (edits on/off, add or remove command rules); never protected paths, secret reads, memory or network",
      body: AutoApproveChangeRequestSchema,
      reply: resultOf(AutoApproveChangeReplySchema),
      errors: session,
      handle: ({ body }, { bus }) => bus.request(subjects.cmd.autoApprove, body, AutoApproveChangeReplySchema),
    }),
    defineRoute({
      method: "GET",
      url: "/api/agent/sessions",
      summary: "Sessions, newest first: filtered by state, workspace and text, paged with offset (total counts every match)",
      query: SessionsQuerySchema,
      reply: resultOf(SessionsReplySchema),
      errors: [],
      handle: ({ query }, { bus }) => bus.request(subjects.cmd.sessions, query, SessionsReplySchema),
    }),
    defineRoute({
      method: "GET",
      url: "/api/agent/instructions",
      summary: "The project instruction files (AGENTS.md and its fallbacks) that apply to a workspace, each trusted, never, undecided or changed since decided",
      query: InstructionsQuerySchema,
      reply: resultOf(InstructionsListReplySchema),
      errors: ["WORKSPACE_NOT_ALLOWED", "WORKSPACE_NOT_FOUND", "WORKSPACE_TOO_BROAD"],
      handle: ({ query }, { bus }) =>
        bus.request(subjects.cmd.instructions, { workspace: query.workspace, ...(query.folder ? { folders: query.folder.split(",").filter(Boolean) } : {}) }, InstructionsListReplySchema),
    }),
    defineRoute({
      method: "POST",
      url: "/api/agent/instructions/forget",
      summary: "Clear the stored decision on a project instruction file: the next run asks again",
      body: InstructionsForgetRequestSchema,
      reply: resultOf(InstructionsForgetReplySchema),
      errors: ["WORKSPACE_NOT_ALLOWED", "WORKSPACE_NOT_FOUND", "WORKSPACE_TOO_BROAD"],
      handle: ({ body }, { bus }) => bus.request(subjects.cmd.instructionsForget, body, InstructionsForgetReplySchema),
    }),
    defineRoute({
      method: "GET",
      url: "/api/agent/costs",
      summary: "The session's tokens (prompt, completion, reused from cache) and model and tool time, per turn, per run and in all: sums over its events",
      query: CostsQuerySchema,
      reply: SessionCostsSchema,
      errors: session,
      async handle({ query }, { bus, sessionEvents }) {
        const snapshot = await bus.request(subjects.cmd.status, { session: query.session }, StatusReplySchema);
        return SessionCostsSchema.parse(sessionCosts(query.session, await sessionEvents(query.session, snapshot.last_seq)));
      },
    }),
  ];
}
