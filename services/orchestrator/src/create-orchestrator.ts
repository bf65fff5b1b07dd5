import { randomUUID } from "node:crypto";
import { StorageType, type JetStreamClient, type NatsConnection, type ObjectStore } from "nats";
import type { Logger } from "pino";
import { sessionOverflowBucketName } from "@aide/runtime";
import { busForward } from "./commands/forwarded-commands.js";
import { busCheckpointsPort, busMcpPort, busModelPort, busToolsPort, jetStreamEgressJournal } from "./bus/bus-service-ports.js";
import { ensureJetStream, lastEventSeq } from "./bus/jetstream-setup.js";
import { jetStreamSettingsFromEnv } from "./bus/jetstream-settings.js";
import type { OrchestratorConfig } from "./config/orchestrator-config.js";
import { EventSink } from "./events/event-sink.js";
import { kvMemoryStore } from "./memory/memory-store.js";
import { kvInstructionTrustStore } from "./instructions/instruction-trust-store.js";
import { Orchestrator } from "./orchestrator.js";
import { kvSessionStore } from "./session/session-store.js";
import { spillingKv } from "./session/spilling-kv.js";

/** The overflow bucket, created on first use (most stacks never need it). */
function overflowObjects(js: JetStreamClient): () => Promise<ObjectStore> {
  let store: Promise<ObjectStore> | undefined;
  return () => {
    store ??= js.views.os(sessionOverflowBucketName, { storage: StorageType.File }).catch((error: unknown) => {
      store = undefined;
      throw error;
    });
    return store;
  };
}

/** Production wiring: every seam backed by the bus and JetStream. */
export async function createBusOrchestrator(connection: NatsConnection, config: OrchestratorConfig, logger: Logger): Promise<Orchestrator> {
  const handles = await ensureJetStream(connection, jetStreamSettingsFromEnv(), logger.child({ module: "jetstream" }));
  const events = new EventSink({
    now: () => new Date(),
    logger: logger.child({ module: "events" }),
    // Short per attempt: the sink retries (same msg id), so a leader election costs one timeout.
    publish: async (subject, data, messageId) => {
      await handles.js.publish(subject, data, { msgID: messageId, timeout: 2_000 });
    },
  });
  return new Orchestrator({
    model: busModelPort(connection, config),
    tools: busToolsPort(connection, config),
    mcp: busMcpPort(connection),
    checkpoints: busCheckpointsPort(connection, config),
    egress: jetStreamEgressJournal(handles.js),
    // A record over one KV value (a 1.5 MB write_file's arguments) spills into an object store.
    store: kvSessionStore(spillingKv(handles.sessions, overflowObjects(handles.js), { limitBytes: 900_000, logger: logger.child({ module: "session-store" }) })),
    memory: kvMemoryStore(handles.memory),
    instructionTrust: kvInstructionTrustStore(handles.instructionTrust),
    events,
    now: () => new Date(),
    generateId: () => randomUUID().replace(/-/g, "").slice(0, 24),
    logger: logger.child({ module: "loop" }),
    config,
    lastEventSeq: (session) => lastEventSeq(handles.jsm, session),
    instanceId: config.instanceId,
    forward: busForward(connection),
  });
}
