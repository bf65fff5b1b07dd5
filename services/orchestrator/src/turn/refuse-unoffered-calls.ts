import { formatErrorMessage, type ToolDescriptor } from "@aide/contracts";
import type { RunContext } from "../run/run-context.js";
import type { BatchCall } from "../session/session-record.js";
import { emitCompleted, refusal } from "./run-tool-call.js";

/**
 * Step 4b: the tools offered this turn are the only ones the model may call. A call to any other
 * tool (one it saw in an earlier turn, guessed, or was told to call by a file) is refused with
 * TOOL_NOT_OFFERED before any approval or execution, and the model is told what it may use.
 * The parser still knows the whole run catalog, so such a call is refused by name, not lost as prose.
 */
export async function refuseUnofferedCalls(context: RunContext, calls: BatchCall[], offered: ToolDescriptor[]): Promise<number> {
  const names = new Set(offered.map((tool) => tool.name));
  const available = offered.map((tool) => tool.name).join(", ");
  let refused = 0;
  for (const call of calls) {
    if (names.has(call.name) || call.status === "done") continue;
    const message = formatErrorMessage("TOOL_NOT_OFFERED", { tool: call.name, available });
    const known = context.catalog.find((tool) => tool.name === call.name);
    // In Plan mode the useful part comes first (event summaries are cut short).
    const planHint =
      context.session.record.mode === "plan" && known !== undefined && !known.read_only
        ? `${call.name} changes the workspace and is not available in Plan mode: investigate with read-only tools, then call switch_to_act_mode with your plan; a person approves the switch. `
        : "";
    const outcome = refusal(`TOOL_NOT_OFFERED: ${planHint}${message}. It was not run; use one of the available tools.`, { error_code: "TOOL_NOT_OFFERED" });
    call.status = "done";
    call.outcome = outcome;
    await emitCompleted(context, call, outcome, 0);
    refused += 1;
  }
  return refused;
}
