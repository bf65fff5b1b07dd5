import { describe, expect, it } from "vitest";
import { httpStatusFor } from "../src/http-errors.js";

describe("decision refusal codes map to their own HTTP statuses", () => {
  it.each([
    ["APPROVAL_NOT_FOUND", 404],
    ["APPROVAL_ALREADY_DECIDED", 409],
    ["APPROVAL_WRONG_SESSION", 409],
    // An instructions answer on an approval of another kind: the request conflicts with that approval.
    ["INSTRUCTIONS_ANSWER_INVALID", 409],
    ["APPROVAL_STALE_RUN", 410],
    ["APPROVAL_EXPIRED", 410],
  ] as const)("%s → %i", (code, status) => {
    expect(httpStatusFor(code)).toBe(status);
  });
});

describe("a workspace that does not exist is 404 (schema-valid input; a client can act on it)", () => {
  it("WORKSPACE_NOT_FOUND → 404", () => {
    expect(httpStatusFor("WORKSPACE_NOT_FOUND")).toBe(404);
  });
  it("WORKSPACE_TOO_BROAD (a valid path the policy never accepts, like /) → 403, as WORKSPACE_NOT_ALLOWED", () => {
    expect(httpStatusFor("WORKSPACE_TOO_BROAD")).toBe(403);
  });
});
