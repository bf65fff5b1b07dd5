import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ModelProfileSchema, type ModelProfile } from "@aide/contracts";
import type { ModelSpec } from "../model-spec.js";
import { modelFilePath } from "../model-file.js";

/** The model service's writable state under `$AIDE_HOME` (its sandbox binds it read-write). */
export function modelStateDir(home: string): string {
  return join(home, "model-state");
}

/**
 * What a cached profile belongs to: a local model's file (path, size, modification time: a new
 * file gets a new probe) or an endpoint's model (URL, model name, the window aide asks for).
 * Undefined for a model with nothing to probe (scripted) or a file that is absent.
 */
export function profileKey(spec: ModelSpec, home: string): string | undefined {
  switch (spec.provider) {
    case "llama": {
      const path = modelFilePath(spec, home);
      if (!existsSync(path)) return undefined;
      const stat = statSync(path);
      return `file:${path}:${stat.size}:${Math.round(stat.mtimeMs)}:ctx${spec.contextSize ?? spec.contextBudget}`;
    }
    case "openai":
      return `endpoint:${spec.baseUrl}:${spec.model}:${spec.flavor}:ctx${spec.contextBudget}:native${spec.nativeTools}`;
    case "scripted":
      return undefined;
    default: {
      const unreachable: never = spec;
      return unreachable;
    }
  }
}

/**
 * Profiles as JSON files named by a hash of their key; unreadable or stale files count as absent.
 * A copy stays in memory so a read-only state folder only costs the cache across restarts.
 */
export class ProfileStore {
  private readonly memory = new Map<string, ModelProfile>();

  constructor(private readonly dir: string) {}

  private file(key: string): string {
    return join(this.dir, `${createHash("sha256").update(key).digest("hex").slice(0, 24)}.json`);
  }

  /** The file first (`aide models probe --refresh` may have rewritten it), else this process's copy. */
  get(key: string): ModelProfile | undefined {
    try {
      const parsed = ModelProfileSchema.safeParse(JSON.parse(readFileSync(this.file(key), "utf8")));
      if (parsed.success && parsed.data.key === key) return parsed.data;
    } catch {
      // absent or unreadable: fall back to what this process measured
    }
    return this.memory.get(key);
  }

  /** Writes atomically (a reader never sees half a file); a read-only state folder only loses the cache. */
  put(profile: ModelProfile): void {
    this.memory.set(profile.key, profile);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const target = this.file(profile.key);
    const temporary = `${target}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(profile, null, 2) + "\n", { mode: 0o600 });
    renameSync(temporary, target);
  }
}
