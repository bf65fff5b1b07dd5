/**
 * A real service process for the bus benchmark: one endpoint that validates its request with zod
 * and echoes the payload, through the same runtime (`runService` + `startService`) every aide
 * service uses.
 */
import { z } from "zod";
import { defineEndpoint, runService, startService } from "@aide/runtime";

export const EchoRequestSchema = z.object({ id: z.number().int(), payload: z.string() });

export const echoEndpoint = defineEndpoint({
  name: "echo",
  subject: "agent.bench.echo",
  schema: EchoRequestSchema,
  async handle(request) {
    return { id: request.id, payload: request.payload };
  },
});

if (process.argv[1]?.endsWith("bus-echo-service.js")) {
  void runService("bench-echo", async ({ connection, logger }) => {
    // The anchor: the same echo as a bare nats.js subscription (no runtime: no admission, no
    // envelope, no zod), so bench:bus can say what the bus itself costs and what the runtime adds.
    const bare = connection.subscribe("agent.bench.bare", { callback: (_error, message) => message.respond(message.data) });
    const service = await startService({
      connection,
      name: "aide-bench-echo",
      version: "0.1.0",
      description: "echo endpoint for npm run bench:bus",
      endpoints: [echoEndpoint],
      logger,
    });
    return async () => {
      bare.unsubscribe();
      await service.stop();
    };
  });
}
