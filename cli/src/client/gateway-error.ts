import type { ErrorCode } from "@aide/contracts";

/** An error answer from the gateway (its envelope's code), or UNAVAILABLE when it cannot be reached. */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  constructor(code: ErrorCode, message: string, status: number) {
    super(message);
    this.name = "GatewayError";
    this.code = code;
    this.status = status;
  }
}
