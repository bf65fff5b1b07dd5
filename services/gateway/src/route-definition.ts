import type { Logger } from "pino";
import type { z } from "zod";
import type { GatewayBus } from "./gateway-bus.js";
import type { LoginCodes } from "./login-codes.js";
import type { EvalReports } from "./eval-reports.js";
import type { RestorePreviews } from "./restore-previews.js";

export interface RouteContext {
  bus: GatewayBus;
  logger: Logger;
  restorePreviews: RestorePreviews;
  version: string;
  /** The panel's one-time login codes (`POST /api/panel/link`, redeemed at `GET /?code=`). */
  loginCodes: LoginCodes;
  /** A session's stored events up to `lastSeq`, in seq order (`read-session-events.ts`). */
  sessionEvents(session: string, lastSeq: number): Promise<unknown[]>;
  /** The eval runs under `$AIDE_HOME/eval` (`GET /api/eval/latest`). */
  evalReports: EvalReports;
}

/** A route's answer that is a file (served with its media type and a sandboxing CSP), not JSON. */
export class FileReply {
  constructor(
    readonly contentType: string,
    readonly body: Buffer,
  ) {}
}

/** One REST route: its contract schemas (validation and the OpenAPI document) and its handler. */
export interface RouteDefinition {
  method: "GET" | "POST";
  url: string;
  summary: string;
  query?: z.ZodTypeAny;
  body?: z.ZodTypeAny;
  /** Path parameters (`:name` in the url). */
  params?: z.ZodTypeAny;
  /** A route that answers a file (`FileReply`) instead of JSON: each media type it serves, with the schema of that body. */
  produces?: Record<string, z.ZodTypeAny>;
  /** The success body (the `result` of the bus reply). */
  reply: z.ZodTypeAny;
  /** Error codes this route answers besides the ones every route may answer. */
  errors: string[];
  handle(input: { query: any; body: any; params: any }, context: RouteContext): Promise<unknown>;
}

export function defineRoute(route: RouteDefinition): RouteDefinition {
  return route;
}

/** The `result` schema inside a `replySchema(...)` union. */
export function resultOf(replySchema: z.ZodTypeAny): z.ZodTypeAny {
  const options = (replySchema as unknown as { options: Array<{ shape: { result?: z.ZodTypeAny } }> }).options;
  const result = options.find((option) => option.shape.result !== undefined)?.shape.result;
  if (!result) throw new Error("not a reply schema");
  return result;
}
