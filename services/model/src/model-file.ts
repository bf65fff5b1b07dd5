import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { aideError } from "@aide/contracts";
import type { LlamaSpec } from "./model-spec.js";

/** Where a local model's GGUF lives: its `file`, or `$AIDE_HOME/models/<id>.gguf` for a pulled URI. */
export function modelFilePath(spec: LlamaSpec, home: string): string {
  return spec.file ?? join(home, "models", `${spec.id}.gguf`);
}

/** The GGUF path, or MODEL_UNAVAILABLE with what to do about it. */
export function requireModelFile(spec: LlamaSpec, home: string): { path: string; bytes: number } {
  const path = modelFilePath(spec, home);
  if (existsSync(path)) return { path, bytes: statSync(path).size };
  const detail = spec.uri ? `${path} is absent; pull it with \`aide models pull ${spec.id}\` (needs the network; ${spec.uri})` : `no GGUF file at ${path}`;
  throw aideError("MODEL_UNAVAILABLE", { model: spec.id, detail });
}

export interface PullProgress {
  totalBytes: number;
  downloadedBytes: number;
}

/**
 * Pulls a model URI (e.g. "hf:owner/repo/file.gguf" or an https URL) into `$AIDE_HOME/models`
 * with progress, for `aide models pull`. Never called by the service at run time: a chat on a
 * model that is not on disk is refused MODEL_UNAVAILABLE. The downloader retries without end
 * when the network is down, so a watchdog gives up after `stallMs` (default 30 s) without progress.
 */
export async function pullModel(spec: LlamaSpec, home: string, options: { onProgress?: (progress: PullProgress) => void; signal?: AbortSignal; stallMs?: number } = {}): Promise<string> {
  if (!spec.uri) throw aideError("MODEL_UNAVAILABLE", { model: spec.id, detail: "the model has no uri to pull" });
  const target = modelFilePath(spec, home);
  const stallMs = options.stallMs ?? 30_000;
  const controller = new AbortController();
  const onAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  let stalled = false;
  const watch = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      stalled = true;
      controller.abort(new Error(`no progress for ${stallMs} ms`));
    }, stallMs);
  };
  const aborted = new Promise<never>((_, reject) => controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true }));
  aborted.catch(() => undefined);
  const { createModelDownloader } = await import("node-llama-cpp");
  watch();
  try {
    const downloader = await Promise.race([
      createModelDownloader({
        modelUri: spec.uri,
        dirPath: join(target, ".."),
        fileName: target.split("/").pop(),
        skipExisting: true,
        deleteTempFileOnCancel: true,
        onProgress: (status) => {
          watch();
          options.onProgress?.({ totalBytes: status.totalSize, downloadedBytes: status.downloadedSize });
        },
      }),
      aborted,
    ]);
    return await Promise.race([downloader.download({ signal: controller.signal }), aborted]);
  } catch (error) {
    const reason = stalled ? `no progress for ${stallMs} ms (offline?)` : (error as Error).message;
    throw aideError("MODEL_UNAVAILABLE", { model: spec.id, detail: `could not pull ${spec.uri}: ${reason}` });
  } finally {
    if (timer) clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
  }
}
