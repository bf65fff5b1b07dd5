import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type NatsConnection } from "nats";
import { startNatsServer, type RunningNatsServer, type BusCredentials } from "@aide/runtime";

export interface TestBus {
  server: RunningNatsServer;
  runDir: string;
  url: string;
  /** Connect as one of the generated users ("tester" may publish and subscribe anything). */
  connectAs(user: string): Promise<NatsConnection>;
  credentials(user: string): BusCredentials;
  stop(): Promise<void>;
}

/** A real nats-server with the generated per-service config, on an ephemeral loopback port. */
export async function startTestBus(): Promise<TestBus> {
  const runDir = mkdtempSync(join(tmpdir(), "aide-bus-"));
  const server = await startNatsServer({
    runDir,
    extraUsers: { tester: { publish: { allow: [">"] }, subscribe: { allow: [">"] }, allow_responses: true } },
  });
  const connections: NatsConnection[] = [];
  return {
    server,
    runDir,
    url: server.url,
    credentials: (user) => {
      const creds = server.credentials[user];
      if (!creds) throw new Error(`no bus user ${user}`);
      return creds;
    },
    async connectAs(user) {
      const creds = server.credentials[user];
      if (!creds) throw new Error(`no bus user ${user}`);
      const connection = await connect({
        servers: server.url,
        user: creds.user,
        pass: creds.password,
        inboxPrefix: creds.inbox_prefix,
        reconnect: false,
      });
      connections.push(connection);
      return connection;
    },
    async stop() {
      await Promise.allSettled(connections.map((c) => c.close()));
      await server.stop();
      rmSync(runDir, { recursive: true, force: true });
    },
  };
}
