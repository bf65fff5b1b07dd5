import { z } from "zod";
import { defineTool } from "../framework/tool-types.js";
import { report } from "./process-report.js";

export const processCancelTool = defineTool({
  name: "process_cancel",
  description: "Stop a background process (and everything it started) and show its last output.",
  parameters: z.strictObject({
    id: z.string().min(1).max(32).describe("The process id from process_start"),
  }),
  aliases: { process_id: "id", pid: "id" },
  kind: "process",
  readOnly: false,
  parallelSafe: false,
  async describeCommand(args) {
    return { command: `cancel background process ${args.id}` };
  },
  async execute(args, context) {
    const process = await context.processes.cancel(context.session, args.id);
    if (process === undefined) return { isError: true, output: `No background process ${args.id} in this session.` };
    return report(process, context);
  },
});
