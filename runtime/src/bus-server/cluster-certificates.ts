import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openssl } from "./bus-certificates.js";

export interface ClusterNodeCertificate {
  /** server_name of the node; its files are `<tlsDir>/<name>.pem` and `<name>-key.pem`. */
  name: string;
  /** Addresses clients and other nodes reach it by (its certificate's subjectAltName). */
  hosts: string[];
}

export interface ClusterCertificates {
  caFile: string;
  nodes: Record<string, { certFile: string; keyFile: string }>;
  /** False when the files of an earlier run were kept. */
  created: boolean;
}

function altNames(hosts: string[]): string {
  const unique = [...new Set([...hosts, "127.0.0.1", "localhost"])];
  return unique.map((host) => (/^[\d.]+$|:/.test(host) ? `IP:${host}` : `DNS:${host}`)).join(",");
}

/**
 * One CA and, per node, a certificate valid for its hosts both as a server (clients, incoming
 * routes) and as a client (its outgoing routes, which the other nodes verify against the same CA).
 * The CA's key is deleted once every node's certificate is signed. Kept as they are when an earlier
 * run wrote them for the same nodes and hosts (a `manifest.json` says which) unless `rotate`: the
 * CA the services pin then stays valid.
 */
export function writeClusterCertificates(tlsDir: string, nodes: ClusterNodeCertificate[], rotate: boolean): ClusterCertificates {
  const manifestFile = join(tlsDir, "manifest.json");
  const wanted = JSON.stringify(nodes.map((node) => ({ name: node.name, alt: altNames(node.hosts) })));
  const files = {
    caFile: join(tlsDir, "ca.pem"),
    nodes: Object.fromEntries(nodes.map((node) => [node.name, { certFile: join(tlsDir, `${node.name}.pem`), keyFile: join(tlsDir, `${node.name}-key.pem`) }])),
  };
  const complete = existsSync(files.caFile) && Object.values(files.nodes).every((node) => existsSync(node.certFile) && existsSync(node.keyFile));
  if (!rotate && complete && existsSync(manifestFile) && readFileSync(manifestFile, "utf8") === wanted) return { ...files, created: false };

  rmSync(tlsDir, { recursive: true, force: true });
  mkdirSync(tlsDir, { recursive: true, mode: 0o700 });
  chmodSync(tlsDir, 0o700);
  const curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  openssl(["req", "-x509", ...curve, "-keyout", "ca-key.pem", "-out", "ca.pem", "-days", "3650", "-subj", "/CN=aide cluster CA"], tlsDir);
  for (const node of nodes) {
    const ext = `${node.name}.ext`;
    writeFileSync(join(tlsDir, ext), `subjectAltName=${altNames(node.hosts)}\nextendedKeyUsage=serverAuth,clientAuth\n`, { mode: 0o600 });
    openssl(["req", ...curve, "-keyout", `${node.name}-key.pem`, "-out", `${node.name}.csr`, "-subj", `/CN=${node.name}`], tlsDir);
    openssl(["x509", "-req", "-in", `${node.name}.csr`, "-CA", "ca.pem", "-CAkey", "ca-key.pem", "-CAcreateserial", "-out", `${node.name}.pem`, "-days", "3650", "-extfile", ext], tlsDir);
    rmSync(join(tlsDir, `${node.name}.csr`), { force: true });
    rmSync(join(tlsDir, ext), { force: true });
    chmodSync(join(tlsDir, `${node.name}-key.pem`), 0o600);
    chmodSync(join(tlsDir, `${node.name}.pem`), 0o644);
  }
  for (const leftover of ["ca-key.pem", "ca.srl"]) rmSync(join(tlsDir, leftover), { force: true });
  chmodSync(files.caFile, 0o644);
  writeFileSync(manifestFile, wanted, { mode: 0o600 });
  return { ...files, created: true };
}
