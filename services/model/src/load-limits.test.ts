import { describe, expect, it } from "vitest";
import { readModelLoadLimits } from "./load-limits.js";

describe("the model service's load limits", () => {
  it("default to 64 at once, 256 waiting, 64 per session", () => {
    expect(readModelLoadLimits({})).toEqual({ maxConcurrent: 64, maxQueued: 256, maxQueuedPerSession: 64 });
  });

  it("follow AIDE_MODEL_MAX_CONCURRENT, and take the queue settings as given", () => {
    expect(readModelLoadLimits({ AIDE_MODEL_MAX_CONCURRENT: "512" })).toEqual({ maxConcurrent: 512, maxQueued: 2048, maxQueuedPerSession: 512 });
    expect(readModelLoadLimits({ AIDE_MODEL_MAX_CONCURRENT: "2", AIDE_MODEL_MAX_QUEUED: "3", AIDE_MODEL_MAX_QUEUED_PER_SESSION: "1" })).toEqual({
      maxConcurrent: 2,
      maxQueued: 3,
      maxQueuedPerSession: 1,
    });
  });

  it("refuse a value that is not a positive integer with CONFIG_INVALID", () => {
    for (const bad of ["0", "-1", "1.5", "many"]) {
      expect(() => readModelLoadLimits({ AIDE_MODEL_MAX_CONCURRENT: bad })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    }
    expect(() => readModelLoadLimits({ AIDE_MODEL_MAX_QUEUED: "0" })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });
});
