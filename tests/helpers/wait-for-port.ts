import { connect } from "node:net";

/** Resolves once something accepts TCP connections on 127.0.0.1:port (a foreign server a test started). */
export async function waitForPort(port: number, attempts = 400): Promise<void> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: "127.0.0.1", port });
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nothing listens on ${port}`);
}
