import type { NatsConnection } from "nats";
import type { Logger } from "pino";
import { announcedRoots, defineEndpoint, startService, withWorkspaceRoots, workspaceRootsMetadata, type RunningService } from "@aide/runtime";
import {
  subjects,
  toolsCloseSubject,
  toolsInstructionsSubject,
  ToolInstructionsRequestSchema,
  ToolExecRequestSchema,
  ToolListRequestSchema,
  ToolPreviewRequestSchema,
  ToolSessionCloseRequestSchema,
} from "@aide/contracts";
import type { CallDependencies } from "./framework/call-dependencies.js";
import { executeCall } from "./framework/execute-call.js";
import { previewCall } from "./framework/preview-call.js";
import { describeTool } from "./framework/list-tools.js";
import type { CallStore } from "./framework/call-store.js";
import { readInstructionFiles } from "./instructions/read-instruction-files.js";

export const toolsServiceVersion = "0.1.0";

export interface ToolsServiceOptions {
  connection: NatsConnection;
  logger: Logger;
  dependencies: CallDependencies;
  /** Concurrent calls at most; more wait their turn (fairly per session), then BUSY. */
  maxConcurrent?: number;
  maxQueued?: number;
  maxQueuedPerSession?: number;
  queueWaitMs?: number;
  /** Runs each mutating call id once (repeats get the stored result); without it every exec runs. */
  calls?: CallStore;
}

/** Registers `aide-tools` with its endpoints (exec, preview, list, close, instructions). */
export async function createToolsService(options: ToolsServiceOptions): Promise<RunningService> {
  const { dependencies } = options;
  const exec = defineEndpoint({
    name: "exec",
    subject: subjects.tools.exec,
    schema: ToolExecRequestSchema,
    handle: (request, { signal }) => {
      const tool = dependencies.registry.find(request.call.name);
      const run = () => executeCall(dependencies, request, signal);
      return options.calls !== undefined && tool !== undefined && !tool.readOnly ? options.calls.execute(request, true, run) : run();
    },
  });
  const preview = defineEndpoint({
    name: "preview",
    subject: subjects.tools.preview,
    schema: ToolPreviewRequestSchema,
    handle: (request, { signal }) => previewCall(dependencies, request, signal),
  });
  const list = defineEndpoint({
    name: "list",
    subject: subjects.tools.list,
    schema: ToolListRequestSchema,
    handle: async () => ({ tools: dependencies.registry.tools.map(describeTool), sandbox: dependencies.sandbox.mode }),
  });
  const close = defineEndpoint({
    name: "close",
    subject: toolsCloseSubject,
    schema: ToolSessionCloseRequestSchema,
    handle: async (request) => {
      const running = dependencies.processes.list(request.session).filter((p) => p.result === undefined).length;
      await dependencies.processes.closeAll(request.session);
      return { session: request.session, processes_reaped: running };
    },
  });
  // Not a model tool: the orchestrator reads the project's instruction files here at a run's start.
  const instructions = defineEndpoint({
    name: "instructions",
    subject: toolsInstructionsSubject,
    schema: ToolInstructionsRequestSchema,
    handle: (request) => readInstructionFiles(request, dependencies.workspaceRoots),
  });
  return startService({
    connection: options.connection,
    name: "aide-tools",
    version: toolsServiceVersion,
    description: "Workspace tools behind a path jail; commands in a bubblewrap sandbox",
    // Also at agent.tools.root.<token>.* per served root, announced in $SRV.INFO (workspace affinity).
    endpoints: withWorkspaceRoots([exec, preview, list, close, instructions], announcedRoots(dependencies.workspaceRoots)),
    metadata: workspaceRootsMetadata(announcedRoots(dependencies.workspaceRoots)),
    logger: options.logger,
    maxConcurrent: options.maxConcurrent ?? 16,
    ...(options.maxQueued !== undefined ? { maxQueued: options.maxQueued } : {}),
    ...(options.maxQueuedPerSession !== undefined ? { maxQueuedPerSession: options.maxQueuedPerSession } : {}),
    ...(options.queueWaitMs !== undefined ? { maxQueueWaitMs: options.queueWaitMs } : {}),
  });
}
