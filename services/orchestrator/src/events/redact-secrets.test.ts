import { describe, expect, it } from "vitest";
import { redactSecrets, redactSecretsDeep } from "./redact-secrets.js";

describe("redactSecrets (event summaries)", () => {
  it.each([
    ["OPENAI_API_KEY=sk-abc123def456ghi789jkl", "sk-abc123def456ghi789jkl"],
    ["export DB_PASSWORD='hunter2hunter2'", "hunter2hunter2"],
    ['{"password": "correct horse battery"}', "correct horse battery"],
    ["aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI"],
    ["token: abcdef0123456789", "abcdef0123456789"],
    ["the key is ghp_0123456789abcdefghijABCDEFGHIJ012345 here", "ghp_0123456789abcdefghij"],
    ["AKIAIOSFODNN7EXAMPLE was used", "AKIAIOSFODNN7EXAMPLE"],
    ["xoxb-123456789012-abcdefghijkl", "xoxb-123456789012"],
    ["Authorization: Bearer abc.def.ghi-jkl_mnop", "abc.def.ghi-jkl_mnop"],
    ["postgres://app:s3cr3tpass@db:5432/x", "s3cr3tpass"],
    ["-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n-----END OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjEAAAA"],
    ["sk_live_abcdefghijklmnop1234", "sk_live_abcdefghijklmnop1234"],
  ])("%s loses its value", (input, secret) => {
    const output = redactSecrets(input);
    expect(output).not.toContain(secret);
    expect(output).toContain("[redacted");
  });
  it("keeps the key names and ordinary text", () => {
    expect(redactSecrets("DB_PASSWORD=hunter2\nPORT=8080\nauthor: Ada")).toBe("DB_PASSWORD=[redacted]\nPORT=8080\nauthor: Ada");
    expect(redactSecrets("2 tests passed; tokens: 120")).toBe("2 tests passed; tokens: 120");
  });
  it("walks metadata objects", () => {
    expect(redactSecretsDeep({ stdout: "API_KEY=abcdefgh12345", exit: 0 })).toEqual({ stdout: "API_KEY=[redacted]", exit: 0 });
  });
});
