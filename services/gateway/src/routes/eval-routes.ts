import { z } from "zod";
import { EvalFileParamsSchema, EvalLatestReplySchema } from "@aide/contracts";
import { defineRoute, FileReply, type RouteDefinition } from "../route-definition.js";

/** The latest `aide eval` run's report: its scoreboard as JSON, and its files by name. */
export function evalRoutes(): RouteDefinition[] {
  return [
    defineRoute({
      method: "GET",
      url: "/api/eval/latest",
      summary: "The newest eval run's report.json (under $AIDE_HOME/eval) and the names of its files",
      reply: EvalLatestReplySchema,
      errors: ["NOT_FOUND"],
      handle: async (_input, { evalReports }) => EvalLatestReplySchema.parse(evalReports.latest()),
    }),
    defineRoute({
      method: "GET",
      url: "/api/eval/latest/:name",
      summary: "One file of the newest eval run (report.json, report.html, report.md, *.svg) by its name, as GET /api/eval/latest lists them",
      params: EvalFileParamsSchema,
      // report.json is served as the object it holds; the others as text.
      produces: { "text/html": z.string(), "text/markdown": z.string(), "application/json": z.record(z.string(), z.unknown()), "image/svg+xml": z.string() },
      reply: z.string(),
      errors: ["NOT_FOUND"],
      async handle({ params }, { evalReports }) {
        const file = evalReports.file(params.name);
        return new FileReply(file.contentType, file.body);
      },
    }),
  ];
}
