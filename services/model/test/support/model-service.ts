import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NatsConnection } from "nats";
import { ModelChatReplySchema, type ModelChatResult } from "@aide/contracts";
import { startTestBus, type TestBus } from "../../../../tests/helpers/bus.js";
import { requestJson, startServiceProcess, type ServiceProcess } from "../../../../tests/helpers/service-process.js";

/** One chat request to the model service (non-streamed, temperature 0, seed 1 unless given), its result unwrapped. */
export type Chat = (body: Record<string, unknown>) => Promise<ModelChatResult>;

/** The model service on a fresh bus with `models`; `chat` sends to it and unwraps the reply. */
export function modelService(models: () => Record<string, unknown>[], env: Record<string, string> = {}): { chat: Chat; start: () => Promise<void>; stop: () => Promise<void> } {
  let bus: TestBus | undefined;
  let client: NatsConnection | undefined;
  let service: ServiceProcess | undefined;
  let dir: string | undefined;
  return {
    start: async () => {
      dir = mkdtempSync(join(tmpdir(), "aide-model-service-"));
      writeFileSync(join(dir, "models.json"), JSON.stringify({ models: models() }));
      bus = await startTestBus();
      client = await bus.connectAs("orchestrator");
      service = await startServiceProcess(bus, "model", { env: { AIDE_MODELS_CONFIG: join(dir, "models.json"), AIDE_HOME: dir, AIDE_MODEL_DISCOVERY: "off", ...env } });
    },
    stop: async () => {
      await service?.stop();
      await bus?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
    chat: async (body) => {
      const raw = await requestJson(client!, "agent.model.chat", { stream: false, temperature: 0, seed: 1, ...body }, 240_000);
      const reply = ModelChatReplySchema.parse(raw);
      if (!reply.ok) throw new Error(`${reply.error.code}: ${reply.error.message}`);
      return reply.result;
    },
  };
}
