import {
  aideError,
  CheckpointDiffQuerySchema,
  CheckpointDiffReplySchema,
  CheckpointListReplySchema,
  CheckpointRestoreBodySchema,
  CheckpointsQuerySchema,
  RestoreReplySchema,
  StatusReplySchema,
  subjects,
} from "@aide/contracts";
import type { GatewayBus } from "../gateway-bus.js";
import { markTruncatedDiff } from "../mark-truncated-diff.js";
import { defineRoute, resultOf, type RouteDefinition } from "../route-definition.js";

/** The checkpoints service is keyed by workspace; the session's snapshot names it. */
async function workspaceOf(bus: GatewayBus, session: string): Promise<string> {
  const snapshot = await bus.request(subjects.cmd.status, { session }, StatusReplySchema);
  return snapshot.workspace;
}

export function checkpointRoutes(): RouteDefinition[] {
  return [
    defineRoute({
      method: "GET",
      url: "/api/checkpoints",
      summary: "The session's checkpoints (the timeline)",
      query: CheckpointsQuerySchema,
      reply: resultOf(CheckpointListReplySchema),
      errors: ["SESSION_NOT_FOUND"],
      async handle({ query }, { bus }) {
        const workspace = await workspaceOf(bus, query.session);
        return bus.request(subjects.checkpoints.list, { workspace, session: query.session }, CheckpointListReplySchema);
      },
    }),
    defineRoute({
      method: "GET",
      url: "/api/checkpoints/diff",
      summary: "The diff between two checkpoints, or from one to the working tree (a cut file diff ends with a `\\ aide:` marker line and truncated: true)",
      query: CheckpointDiffQuerySchema,
      reply: resultOf(CheckpointDiffReplySchema),
      errors: ["SESSION_NOT_FOUND", "CHECKPOINT_NOT_FOUND"],
      async handle({ query }, { bus }) {
        const workspace = await workspaceOf(bus, query.session);
        const request = query.to === undefined ? { workspace, from: query.from } : { workspace, from: query.from, to: query.to };
        const result = await bus.request(subjects.checkpoints.diff, request, CheckpointDiffReplySchema);
        return { ...result, files: result.files.map(markTruncatedDiff) };
      },
    }),
    defineRoute({
      method: "POST",
      url: "/api/checkpoints/restore",
      summary: "Restore a checkpoint: first without confirm (the plan), then with confirm: true (applies it)",
      body: CheckpointRestoreBodySchema,
      reply: resultOf(RestoreReplySchema),
      errors: ["SESSION_NOT_FOUND", "CHECKPOINT_NOT_FOUND", "WORKSPACE_CHANGED", "PREVIEW_REQUIRED", "ALREADY_RUNNING"],
      async handle({ body }, { bus, restorePreviews }) {
        if (body.confirm && !restorePreviews.consume(body.session, body.checkpoint)) {
          throw aideError("PREVIEW_REQUIRED", { checkpoint: body.checkpoint });
        }
        const request = { session: body.session, checkpoint: body.checkpoint, mode: body.mode, dry_run: !body.confirm, force: body.force };
        const result = await bus.request(subjects.cmd.restore, request, RestoreReplySchema, { timeoutMs: 120_000 });
        if (!body.confirm) restorePreviews.remember(body.session, body.checkpoint);
        return result;
      },
    }),
  ];
}
