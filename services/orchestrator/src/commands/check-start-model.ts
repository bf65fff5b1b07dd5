import { aideError } from "@aide/contracts";
import type { ModelPort } from "../bus/service-ports.js";

/**
 * Before a session exists: the model the start names (or the configured default) must be one the
 * model service offers, and there must be a model at all. Refused with the known ids, or with what
 * to do when there is none. A model service that does not answer does not block the start (the
 * run then reports the service's own error).
 */
export async function checkStartModel(model: ModelPort, wanted: string | undefined): Promise<void> {
  const offered = await model.models?.();
  if (!offered) return;
  if (offered.ids.length === 0) throw aideError("NO_MODEL", { detail: offered.hint ?? "run `aide models` to see what was looked for" });
  if (wanted !== undefined && !offered.ids.includes(wanted)) throw aideError("MODEL_NOT_FOUND", { model: wanted, known: offered.ids.join(", ") });
}
