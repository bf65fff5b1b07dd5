import { z } from "zod";
import { defineTool } from "../framework/tool-types.js";
import { integerArg } from "../framework/argument-types.js";
import { report, waitFor } from "./process-report.js";

export const processPollTool = defineTool({
  name: "process_poll",
  description: "Show the new output of a background process started with process_start, and whether it is still running.",
  parameters: z.strictObject({
    id: z.string().min(1).max(32).describe("The process id from process_start (e.g. p1)"),
    wait_ms: integerArg({ min: 0, max: 30_000 }).default(0).describe("Wait up to this long for the process to exit first"),
  }),
  aliases: { process_id: "id", pid: "id" },
  kind: "read",
  readOnly: true,
  parallelSafe: true,
  timeoutMs: 45_000,
  async execute(args, context) {
    const process = context.processes.get(context.session, args.id);
    if (process === undefined)
      return {
        isError: true,
        output: `No background process ${args.id} in this session. Running: ${
          context.processes
            .list(context.session)
            .map((p) => p.id)
            .join(", ") || "none"
        }.`,
      };
    await waitFor(process, args.wait_ms, context.signal);
    return report(process, context);
  },
});
