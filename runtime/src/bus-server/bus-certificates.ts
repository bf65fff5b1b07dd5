import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { aideError } from "@aide/contracts";

export interface BusCertificates {
  /** The per-stack CA every client pins (readable by each service). */
  caFile: string;
  /** nats-server's certificate (127.0.0.1, localhost) and its key (nats-server only). */
  certFile: string;
  keyFile: string;
}

export function openssl(args: string[], cwd: string): void {
  const result = spawnSync("openssl", args, { cwd, encoding: "utf8", timeout: 30_000 });
  if (result.error && (result.error as NodeJS.ErrnoException).code === "ENOENT") {
    throw aideError("UNAVAILABLE", { service: "openssl", detail: "openssl is not installed; it makes the bus's TLS certificate: apt-get install openssl" });
  }
  if (result.status !== 0) {
    throw aideError("INTERNAL", { detail: `openssl ${args[0]} failed: ${(result.stderr || String(result.error)).trim().slice(0, 400)}` });
  }
}

/**
 * A fresh CA and a server certificate for 127.0.0.1 signed by it, at every start, under
 * `<runDir>/tls` (0700). The CA's key is deleted once the server certificate is signed: nobody,
 * not even this stack, can mint a second certificate that clients would accept. A foreign server
 * on the port cannot present one, so services that pin this CA refuse it.
 */
export function writeBusCertificates(runDir: string, hosts: string[] = ["127.0.0.1"]): BusCertificates {
  const dir = join(runDir, "tls");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const names = hosts.map((host) => (/^[\d.]+$|:/.test(host) ? `IP:${host}` : `DNS:${host}`));
  writeFileSync(join(dir, "server.ext"), `subjectAltName=${[...names, "DNS:localhost"].join(",")}\nextendedKeyUsage=serverAuth\n`, { mode: 0o600 });
  const curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  openssl(["req", "-x509", ...curve, "-keyout", "ca-key.pem", "-out", "ca.pem", "-days", "3650", "-subj", "/CN=aide stack CA"], dir);
  openssl(["req", ...curve, "-keyout", "server-key.pem", "-out", "server.csr", "-subj", "/CN=aide nats-server"], dir);
  openssl(["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca-key.pem", "-CAcreateserial", "-out", "server.pem", "-days", "3650", "-extfile", "server.ext"], dir);
  for (const leftover of ["ca-key.pem", "server.csr", "server.ext", "ca.srl"]) rmSync(join(dir, leftover), { force: true });
  chmodSync(join(dir, "server-key.pem"), 0o600);
  // The CA and the server certificate are public; 0644 inside the 0700 directory.
  chmodSync(join(dir, "ca.pem"), 0o644);
  chmodSync(join(dir, "server.pem"), 0o644);
  return { caFile: join(dir, "ca.pem"), certFile: join(dir, "server.pem"), keyFile: join(dir, "server-key.pem") };
}
