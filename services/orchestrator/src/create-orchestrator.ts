import { randomUUID } from "node:crypto";
import type { NatsConnection } from "nats";
import type { Logger } from "pino";
import { busForward } from "./commands/forwarded-commands.js";
import { busCheckpointsPort, busMcpPort, busModelPort, busToolsPort, jetStreamEgressJournal } from "./bus/bus-service-ports.js";
import { ensureJetStream, lastEventSeq } from "./bus/jetstream-setup.js";
import type { OrchestratorConfig } from "./config/orchestrator-config.js";
import { EventSink } from "./events/event-sink.js";
import { kvMemoryStore } from "./memory/memory-store.js";
import { Orchestrator } from "./orchestrator.js";
import { kvSessionStore } from "./session/session-store.js";

/** Production wiring: every seam backed by the bus and JetStream. */
export async function createBusOrchestrator(connection: NatsConnection, config: OrchestratorConfig, logger: Logger): Promise<Orchestrator> {
  const handles = await ensureJetStream(connection);
  const events = new EventSink({
    now: () => new Date(),
    logger: logger.child({ module: "events" }),
    publish: async (subject, data, messageId) => {
      await handles.js.publish(subject, data, { msgID: messageId });
    },
  });
  return new Orchestrator({
    model: busModelPort(connection, config),
    tools: busToolsPort(connection, config),
    mcp: busMcpPort(connection),
    checkpoints: busCheckpointsPort(connection, config),
    egress: jetStreamEgressJournal(handles.js),
    store: kvSessionStore(handles.sessions),
    memory: kvMemoryStore(handles.memory),
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
