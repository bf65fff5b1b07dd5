import { resolve, sep } from "node:path";
import { RequestStrategy, type NatsConnection } from "nats";
import { z } from "zod";
import { aideError } from "@aide/contracts";
import { decodeJson } from "../messages/codec.js";
import { rootedSubject, workspaceRootsMetadataKey } from "./workspace-affinity.js";

export interface WorkspaceRouter {
  /**
   * The subject for `subject` (e.g. `agent.tools.exec`) that reaches an instance serving
   * `workspace`: its root's subject, or the plain one when an instance takes any workspace (or
   * none answered discovery, so the request reports UNAVAILABLE as before). Throws
   * WORKSPACE_NOT_SERVED, naming the served roots, when instances answer and none has it.
   */
  subjectFor(subject: string, workspace: string): Promise<string>;
  /** Forget what discovery found (an instance went away): the next call asks again. */
  forget(): void;
}

export interface WorkspaceRouterOptions {
  connection: NatsConnection;
  /** The micro-service name, `aide-tools` or `aide-checkpoints`. */
  service: string;
  /** How long a discovery stays fresh. */
  ttlMs?: number;
  /** How long discovery waits for the instances' answers. */
  discoveryMs?: number;
  now?: () => number;
}

const InfoSchema = z.object({ name: z.string(), id: z.string(), metadata: z.record(z.string(), z.string()).nullish() });

function contains(root: string, workspace: string): boolean {
  return workspace === root || workspace.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** Routes requests for a workspace to the tools/checkpoints instances that announced its root. */
export function createWorkspaceRouter(options: WorkspaceRouterOptions): WorkspaceRouter {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? 5_000;
  type Instances = Array<{ id: string; roots: string[] }>;
  let cached: { at: number; instances: Instances } | undefined;
  let pending: Promise<Instances> | undefined;
  // forget() starts a new generation: a discovery asked before it is neither joined nor kept.
  let generation = 0;

  async function discover(): Promise<Instances> {
    const found: Instances = [];
    try {
      const replies = await options.connection.requestMany(`$SRV.INFO.${options.service}`, new Uint8Array(), {
        strategy: RequestStrategy.JitterTimer,
        jitter: 150,
        maxWait: options.discoveryMs ?? 1_500,
      });
      for await (const message of replies) {
        if (message.data.length === 0) continue;
        let raw: unknown;
        try {
          raw = decodeJson(message.data);
        } catch {
          continue;
        }
        const info = InfoSchema.safeParse(raw);
        if (!info.success || info.data.name !== options.service) continue;
        const announced = info.data.metadata?.[workspaceRootsMetadataKey];
        let roots: string[] = [];
        try {
          roots = announced ? z.array(z.string()).parse(JSON.parse(announced)) : [];
        } catch {
          roots = [];
        }
        found.push({ id: info.data.id, roots });
      }
    } catch {
      // No responders: nobody to route to; the plain subject reports UNAVAILABLE.
    }
    return found;
  }

  /** One discovery at a time; its answer replaces the list unless forget() came in between. */
  function refresh(): Promise<Instances> {
    if (pending !== undefined) return pending;
    const asked = generation;
    const started = discover().then((found) => {
      if (asked === generation) cached = { at: now(), instances: found };
      return found;
    });
    pending = started;
    void started.finally(() => {
      if (pending === started) pending = undefined;
    });
    return started;
  }

  /**
   * The instances as last discovered. Past `ttlMs` the old list still answers while a new
   * discovery runs in the background (a discovery takes 150 ms or more; no request waits for it
   * while something is known). Only an empty or forgotten list waits for a discovery.
   */
  async function instances(): Promise<Instances> {
    if (cached === undefined || (cached.instances.length === 0 && now() - cached.at >= ttlMs)) return refresh();
    if (now() - cached.at >= ttlMs) void refresh();
    return cached.instances;
  }

  return {
    async subjectFor(subject, workspace) {
      const target = resolve(workspace);
      let known = await instances();
      // A workspace nobody announced may belong to an instance that started since: ask once more.
      const matches = (list: typeof known) => list.some((instance) => instance.roots.length === 0 || instance.roots.some((root) => contains(root, target)));
      if (known.length > 0 && !matches(known) && (cached === undefined || now() - cached.at > 250)) {
        known = await refresh();
      }
      if (known.length === 0 || known.some((instance) => instance.roots.length === 0)) return subject;
      const best = known
        .flatMap((instance) => instance.roots)
        .filter((root) => contains(root, target))
        .sort((a, b) => b.length - a.length)[0];
      if (best === undefined) {
        const roots = [...new Set(known.flatMap((instance) => instance.roots))].sort();
        throw aideError("WORKSPACE_NOT_SERVED", { workspace: target, service: options.service.replace(/^aide-/, ""), roots: roots.join(", ") });
      }
      return rootedSubject(subject, best);
    },
    forget() {
      cached = undefined;
      pending = undefined;
      generation += 1;
    },
  };
}
