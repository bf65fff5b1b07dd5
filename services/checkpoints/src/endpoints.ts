/** The bus endpoints of the service: one per operation, each with its request schema. */
import {
  CheckpointCommitRequestSchema,
  CheckpointDiffRequestSchema,
  CheckpointListRequestSchema,
  CheckpointPruneRequestSchema,
  CheckpointRestoreRequestSchema,
  CheckpointUsageRequestSchema,
  subjects,
} from "@aide/contracts";
import { defineEndpoint, type Endpoint } from "@aide/runtime";
import type { CheckpointService } from "./checkpoint-service.js";

/** The service's bus surface: one endpoint per subject, each a thin call into CheckpointService. */
export function checkpointEndpoints(service: CheckpointService): Endpoint[] {
  return [
    defineEndpoint({ name: "commit", subject: subjects.checkpoints.commit, schema: CheckpointCommitRequestSchema, handle: (request, { signal }) => service.commit(request, signal) }),
    defineEndpoint({ name: "list", subject: subjects.checkpoints.list, schema: CheckpointListRequestSchema, handle: (request) => service.list(request) }),
    defineEndpoint({ name: "restore", subject: subjects.checkpoints.restore, schema: CheckpointRestoreRequestSchema, handle: (request, { signal }) => service.restore(request, signal) }),
    defineEndpoint({ name: "diff", subject: subjects.checkpoints.diff, schema: CheckpointDiffRequestSchema, handle: (request, { signal }) => service.diff(request, signal) }),
    defineEndpoint({ name: "prune", subject: subjects.checkpoints.prune, schema: CheckpointPruneRequestSchema, handle: (request, { signal }) => service.prune(request, signal) }),
    defineEndpoint({ name: "usage", subject: subjects.checkpoints.usage, schema: CheckpointUsageRequestSchema, handle: (request) => service.usage(request) }),
  ] as Endpoint[];
}
