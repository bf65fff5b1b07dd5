/**
 * The context window a GGUF was trained with (`<architecture>.context_length` in its metadata),
 * read from the header only; undefined when the file has no such key or cannot be read.
 */
export async function ggufTrainedWindow(path: string): Promise<number | undefined> {
  try {
    const { readGgufFileInfo } = await import("node-llama-cpp");
    const info = await readGgufFileInfo(path, {
      readTensorInfo: false,
      logWarnings: false,
      sourceType: "filesystem",
      ignoreKeys: ["tokenizer.ggml.tokens", "tokenizer.ggml.scores", "tokenizer.ggml.token_type", "tokenizer.ggml.merges"],
    });
    const value = (info.architectureMetadata as { context_length?: unknown }).context_length;
    return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}
