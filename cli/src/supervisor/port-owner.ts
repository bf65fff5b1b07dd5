import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { createServer } from "node:net";

export interface PortOwner {
  pid: number;
  /** The owner's command line, arguments joined by spaces (cut to 200 characters). */
  command: string;
}

/** Whether 127.0.0.1:port can be bound now (what nats-server and the gateway will try). */
export function portFree(port: number, host = "127.0.0.1"): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** Inodes of the sockets listening on `port` (any address), from /proc/net/tcp and tcp6. */
function listeningInodes(port: number, procRoot: string): Set<string> {
  const inodes = new Set<string>();
  for (const table of ["tcp", "tcp6"]) {
    let text = "";
    try {
      text = readFileSync(`${procRoot}/net/${table}`, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      const localPort = Number.parseInt(fields[1]!.split(":")[1] ?? "", 16);
      // st 0A is LISTEN.
      if (localPort === port && fields[3] === "0A" && fields[9] !== "0") inodes.add(fields[9]!);
    }
  }
  return inodes;
}

/**
 * The process listening on `port`, found through /proc (the socket's inode in /proc/net/tcp*, then
 * the /proc/<pid>/fd link to it). Undefined when it cannot be known: another user's process, or
 * another network namespace. Never throws.
 */
export function findPortOwner(port: number, procRoot = "/proc"): PortOwner | undefined {
  const inodes = listeningInodes(port, procRoot);
  if (inodes.size === 0) return undefined;
  const wanted = new Set([...inodes].map((inode) => `socket:[${inode}]`));
  let pids: string[] = [];
  try {
    pids = readdirSync(procRoot).filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`${procRoot}/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let target = "";
      try {
        target = readlinkSync(`${procRoot}/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      if (!wanted.has(target)) continue;
      let command = "";
      try {
        command = readFileSync(`${procRoot}/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ");
      } catch {
        command = "";
      }
      return { pid: Number(pid), command: command.slice(0, 200) || "(command line not readable)" };
    }
  }
  return undefined;
}

/** ` by pid N (command)`, or "" when the owner cannot be known: completes PORT_IN_USE's message. */
export function describePortOwner(owner: PortOwner | undefined): string {
  return owner ? ` by pid ${owner.pid} (${owner.command})` : "";
}
