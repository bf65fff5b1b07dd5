import { describe, expect, it } from "vitest";
import { AideError, aideError } from "@aide/contracts";
import { checkpointFailure } from "./create-checkpoint.js";

describe("checkpointFailure: a code for each reason, never INTERNAL", () => {
  it("maps the bus's no-responder and timeout to CHECKPOINT_UNAVAILABLE and CHECKPOINT_TIMEOUT", () => {
    expect(checkpointFailure(aideError("UNAVAILABLE", { service: "checkpoints", detail: "no responder" }, { reason: "no_responder" })).code).toBe("CHECKPOINT_UNAVAILABLE");
    expect(checkpointFailure(aideError("UNAVAILABLE", { service: "checkpoints", detail: "no reply within 5 ms" }, { reason: "timeout" })).code).toBe("CHECKPOINT_TIMEOUT");
  });
  it("keeps the service's own codes and turns INTERNAL or a plain error into CHECKPOINT_FAILED", () => {
    expect(checkpointFailure(aideError("DISK_FULL", { workspace: "/w", detail: "ENOSPC" })).code).toBe("DISK_FULL");
    expect(checkpointFailure(aideError("CHECKPOINT_TIMEOUT", { workspace: "/w", ms: 10 })).code).toBe("CHECKPOINT_TIMEOUT");
    expect(checkpointFailure(new AideError("INTERNAL", "boom"))).toEqual({ code: "CHECKPOINT_FAILED", message: "The checkpoint failed: boom" });
    expect(checkpointFailure(new Error("disk on fire")).code).toBe("CHECKPOINT_FAILED");
  });
});
