import { AideError, aideError, type ErrorCode, type ErrorEnvelope } from "@aide/contracts";

/** The HTTP status each error code maps to; codes not listed are client errors (400). */
const statusByCode: Partial<Record<ErrorCode, number>> = {
  VALIDATION: 400,
  BAD_JSON: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  FORBIDDEN_ORIGIN: 403,
  FORBIDDEN_HOST: 403,
  WORKSPACE_NOT_ALLOWED: 403,
  WORKSPACE_TOO_BROAD: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  SESSION_NOT_FOUND: 404,
  WORKSPACE_NOT_FOUND: 404,
  RUN_NOT_FOUND: 404,
  APPROVAL_NOT_FOUND: 404,
  CHECKPOINT_NOT_FOUND: 404,
  MODEL_NOT_FOUND: 404,
  ALREADY_RUNNING: 409,
  WORKSPACE_BUSY: 409,
  WORKSPACE_NOT_SERVED: 409,
  NOT_RUNNING: 409,
  APPROVAL_STALE: 409,
  WORKSPACE_CHANGED: 409,
  PREVIEW_REQUIRED: 409,
  APPROVAL_CONFIRMATION_REQUIRED: 409,
  APPROVAL_ALREADY_DECIDED: 409,
  APPROVAL_WRONG_SESSION: 409,
  INSTRUCTIONS_ANSWER_INVALID: 409,
  APPROVAL_STALE_RUN: 410,
  APPROVAL_EXPIRED: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UPGRADE_REQUIRED: 426,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  CHECKPOINT_FAILED: 500,
  MODEL_FAILED: 502,
  INTERRUPTED: 502,
  UNAVAILABLE: 503,
  BUSY: 503,
  MODEL_UNAVAILABLE: 503,
  NO_MODEL: 503,
  TIMEOUT: 504,
};

export function httpStatusFor(code: ErrorCode): number {
  return statusByCode[code] ?? 400;
}

export function errorEnvelope(error: AideError): ErrorEnvelope {
  return { error: { code: error.code, message: error.message } };
}

/** What the request said about itself, for the messages of Fastify's own refusals. */
export interface RequestFacts {
  bodyLimitBytes?: number;
  contentLength?: string;
}

/**
 * Turns whatever a handler or Fastify threw into an AideError. Fastify's own errors (body too
 * large, bad JSON, unknown media type, a QUERY without a Content-Type, any other refusal of the
 * request it makes itself) get the catalog code of their 4xx status; anything unknown becomes
 * INTERNAL with no detail, so a stack trace never reaches a client.
 */
export function toAideError(error: unknown, facts: RequestFacts = {}): AideError {
  if (error instanceof AideError) return error;
  const fastifyCode = (error as { code?: string }).code;
  switch (fastifyCode) {
    case "FST_ERR_CTP_BODY_TOO_LARGE": {
      const limit = facts.bodyLimitBytes !== undefined ? String(facts.bodyLimitBytes) : "the body limit";
      const size = facts.contentLength !== undefined && /^\d+$/.test(facts.contentLength) ? facts.contentLength : `more than ${limit}`;
      return aideError("PAYLOAD_TOO_LARGE", { size, limit });
    }
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return aideError("BAD_JSON", { detail: (error as Error).message });
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return aideError("UNSUPPORTED_MEDIA_TYPE");
    default:
      break;
  }
  if (error instanceof SyntaxError) return aideError("BAD_JSON", { detail: error.message });
  const status = (error as { statusCode?: unknown }).statusCode;
  if (typeof fastifyCode === "string" && fastifyCode.startsWith("FST_") && typeof status === "number" && status >= 400 && status < 500) {
    return clientError(status, (error as Error).message);
  }
  return aideError("INTERNAL", { detail: "unexpected error (see the gateway log)" });
}

/** A refusal Fastify made itself, by its status: the catalog code for it, with Fastify's words as the detail. */
function clientError(status: number, message: string): AideError {
  switch (status) {
    case 404:
      return aideError("NOT_FOUND", { detail: message });
    case 413:
      return aideError("PAYLOAD_TOO_LARGE", { size: "more than the limit", limit: "the body limit" });
    case 415:
      return aideError("UNSUPPORTED_MEDIA_TYPE");
    default:
      // 400 and the rarer ones (a malformed Content-Length, a missing Content-Type, too long a URL parameter): the request is not valid.
      return aideError("VALIDATION", { detail: message });
  }
}
