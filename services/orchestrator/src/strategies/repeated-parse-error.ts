import type { ToolDescriptor } from "@aide/contracts";
import { exampleCall } from "../context/tool-examples.js";

/**
 * The loop_breaker strategy for malformed calls: the same parse errors as the previous reply's get
 * a different instruction than "fix the call": what failed twice, and a well-formed example of
 * that tool's call to copy (the tool is named at the start of each error, `attempt_completion: …`).
 * Undefined when this is not a repeat. The mistake limit still ends the run at the third.
 */
export function repeatedParseErrorInstruction(errors: readonly string[], previous: readonly string[] | undefined, tools: readonly ToolDescriptor[]): string | undefined {
  if (previous === undefined || errors.length === 0 || errors.join("\n") !== previous.join("\n")) return undefined;
  const names = [...new Set(errors.map((error) => /^([a-z_][a-z0-9_]*):/i.exec(error)?.[1]).filter((name): name is string => name !== undefined))];
  const examples = names.flatMap((name) => {
    const tool = tools.find((entry) => entry.name === name);
    return tool ? [exampleCall(tool)] : [];
  });
  const copy =
    examples.length > 0
      ? `Write the call exactly in this shape, every tag closed, nothing else around it:\n${examples.join("\n")}`
      : "Write one call in the XML format of the tool list, every tag closed.";
  return `LOOP: your last two replies had the same malformed call (${errors[0]}). Sending it the same way fails again, and a third time ends the run.\n${copy}`;
}
