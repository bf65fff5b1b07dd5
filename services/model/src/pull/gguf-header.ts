import { open } from "node:fs/promises";

export type GgufHeaderCheck = { ok: true; version: number; tensors: number; keys: number } | { ok: false; reason: string };

/**
 * The GGUF header of a file: the magic `GGUF`, a known version (2 or 3), and non-zero tensor and
 * metadata counts; then the whole metadata section must parse (node-llama-cpp's reader) and name
 * an architecture. A truncated or foreign file fails with the reason.
 */
export async function checkGgufHeader(path: string): Promise<GgufHeaderCheck> {
  const handle = await open(path, "r");
  const head = Buffer.alloc(24);
  try {
    const { bytesRead } = await handle.read(head, 0, 24, 0);
    if (bytesRead < 24) return { ok: false, reason: `${bytesRead} bytes: too short for a GGUF header` };
  } finally {
    await handle.close();
  }
  if (head.toString("latin1", 0, 4) !== "GGUF") return { ok: false, reason: `the file starts with ${JSON.stringify(head.toString("latin1", 0, 4))}, not the GGUF magic` };
  const version = head.readUInt32LE(4);
  if (version !== 2 && version !== 3) return { ok: false, reason: `GGUF version ${version} is not 2 or 3` };
  const tensors = Number(head.readBigUInt64LE(8));
  const keys = Number(head.readBigUInt64LE(16));
  if (tensors === 0 || keys === 0) return { ok: false, reason: `the GGUF header declares ${tensors} tensors and ${keys} metadata keys` };
  const facts = await ggufFacts(path);
  if (!facts) return { ok: false, reason: "the GGUF metadata does not parse" };
  if (!facts.architecture) return { ok: false, reason: "the GGUF metadata names no general.architecture" };
  return { ok: true, version, tensors, keys };
}

export interface GgufFacts {
  architecture?: string;
  name?: string;
  baseModels: string[];
  finetune?: string;
  license?: string;
  contextLength?: number;
  chatTemplate?: string;
  fileType?: number;
}

/** What a GGUF's metadata says about itself (read from the header only), or undefined if it does not parse. */
export async function ggufFacts(path: string): Promise<GgufFacts | undefined> {
  try {
    const { readGgufFileInfo } = await import("node-llama-cpp");
    const info = await readGgufFileInfo(path, {
      readTensorInfo: false,
      logWarnings: false,
      sourceType: "filesystem",
      ignoreKeys: ["tokenizer.ggml.tokens", "tokenizer.ggml.scores", "tokenizer.ggml.token_type", "tokenizer.ggml.merges"],
    });
    const meta = info.metadata as unknown as Record<string, Record<string, unknown>>;
    const general = (meta.general ?? {}) as Record<string, unknown>;
    const tokenizer = (meta.tokenizer ?? {}) as Record<string, unknown>;
    const text = (value: unknown) => (typeof value === "string" ? value : undefined);
    const baseModels: string[] = [];
    const base = general.base_model as Record<string, unknown> | undefined;
    if (base && typeof base === "object") {
      for (const [key, entry] of Object.entries(base)) {
        if (key === "count" || !entry || typeof entry !== "object") continue;
        const e = entry as Record<string, unknown>;
        const label = text(e.repo_url) ?? [text(e.organization), text(e.name)].filter(Boolean).join("/");
        if (label) baseModels.push(label);
      }
    }
    const context = (info.architectureMetadata as { context_length?: unknown }).context_length;
    return {
      architecture: text(general.architecture),
      name: text(general.name),
      baseModels,
      finetune: text(general.finetune),
      license: text(general.license),
      contextLength: typeof context === "number" ? context : undefined,
      chatTemplate: text(tokenizer.chat_template),
      fileType: typeof general.file_type === "number" ? general.file_type : undefined,
    };
  } catch {
    return undefined;
  }
}
