import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import type { Endpoint } from "../service/service.js";

/**
 * Workspace affinity (ARCHITECTURE §11): a tools or checkpoints service also answers each of its
 * endpoints at `agent.<area>.root.<token>.<verb>` for every workspace root it serves, and says the
 * roots in its `$SRV.INFO` metadata, so a requester addresses the instances that have the
 * workspace — on whatever host — without a shared filesystem.
 */
export const workspaceRootsMetadataKey = "workspace_roots";

/** Tokens by the root as given: every routed request asks again for one of a few roots. */
const rootTokens = new Map<string, string>();
const maxRootTokens = 1_024;

/** A subject token for a root (subjects cannot hold `/` or `.`). */
export function workspaceRootToken(root: string): string {
  const known = rootTokens.get(root);
  if (known !== undefined) return known;
  const token = createHash("sha256").update(resolve(root)).digest("hex").slice(0, 16);
  // `resolve` of a relative root depends on the working directory: only absolute roots are kept.
  if (root.startsWith("/")) {
    if (rootTokens.size >= maxRootTokens) rootTokens.clear();
    rootTokens.set(root, token);
  }
  return token;
}

/** `agent.tools.exec` → `agent.tools.root.<token>.exec`. */
export function rootedSubject(subject: string, root: string): string {
  const [agent, area, ...verb] = subject.split(".");
  return `${agent}.${area}.root.${workspaceRootToken(root)}.${verb.join(".")}`;
}

/** The roots as given and as real paths (a client may name either), deduplicated. */
export function announcedRoots(roots: readonly string[]): string[] {
  const all = roots.flatMap((root) => {
    const given = resolve(root);
    try {
      return [given, realpathSync(given)];
    } catch {
      return [given];
    }
  });
  return [...new Set(all)];
}

/** Each endpoint once more per root, at its rooted subject (same handler, same validation). */
export function withWorkspaceRoots(endpoints: Endpoint[], roots: string[]): Endpoint[] {
  const rooted = roots.flatMap((root) => endpoints.map((endpoint) => ({ ...endpoint, name: `${endpoint.name}-${workspaceRootToken(root)}`, subject: rootedSubject(endpoint.subject, root) })));
  return [...endpoints, ...rooted];
}

/** The `$SRV.INFO` metadata announcing the roots (empty list: the instance takes any workspace). */
export function workspaceRootsMetadata(roots: string[]): Record<string, string> {
  return { [workspaceRootsMetadataKey]: JSON.stringify(roots) };
}
