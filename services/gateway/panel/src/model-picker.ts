import { api } from "./api.js";
import { byId, el } from "./dom.js";
import { shown } from "./screen-text.js";

interface ModelInfo {
  id: string;
  provider: string;
  label?: string;
  available: boolean;
  loaded: boolean;
  context_budget: number;
  detail?: string;
  profile?: {
    context: { window: number };
    prompt_tier: string;
    tool_calls: string;
    grammar: boolean;
    speed: { prefill_tokens_per_s?: number; decode_tokens_per_s?: number };
    kv_reuse?: { reused: boolean };
    probed_at: string;
  };
}

/** What the probe measured about a model, in one line (or that it was never probed). */
export function profileLine(model: ModelInfo): string {
  const p = model.profile;
  if (!p) return `${model.provider} · budget ${model.context_budget} tokens · not probed (aide models probe ${model.id})`;
  const speed = [p.speed.prefill_tokens_per_s && `prefill ${Math.round(p.speed.prefill_tokens_per_s)} tok/s`, p.speed.decode_tokens_per_s && `decode ${Math.round(p.speed.decode_tokens_per_s)} tok/s`]
    .filter(Boolean)
    .join(", ");
  return `${model.provider} · window ${p.context.window} · ${p.prompt_tier} prompt · ${p.tool_calls} tool calls${p.grammar ? " + grammar" : ""}${speed ? ` · ${speed}` : ""}${p.kv_reuse ? ` · KV reuse ${p.kv_reuse.reused ? "yes" : "no"}` : ""} · probed ${p.probed_at.slice(0, 10)}`;
}

/** The start form's model choice, from the registry (`GET /api/models`), with each model's probe profile. */
export async function loadModelPicker(): Promise<void> {
  const select = byId<HTMLSelectElement>("model");
  const info = byId("model-profile");
  const { models, default: fallback, hint } = await api<{ models: ModelInfo[]; default: string; hint?: string }>("GET", "/api/models");
  select.replaceChildren(
    el("option", { text: fallback ? `default (${shown(fallback)})` : "default", attrs: { value: "" } }),
    ...models.map((m) => el("option", { text: `${shown(m.label ?? m.id)}${m.available ? "" : " (unavailable)"}${m.profile ? " ✓ probed" : ""}`, attrs: { value: m.id } })),
  );
  const describe = () => {
    const model = models.find((m) => m.id === (select.value || fallback));
    info.textContent = model ? shown(profileLine(model)) + (model.available ? "" : ` · unavailable: ${shown(model.detail ?? "")}`) : shown(hint ?? "");
  };
  select.addEventListener("change", describe);
  describe();
}
