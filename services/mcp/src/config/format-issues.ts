import type { z } from "zod";

/** Zod issues as `servers.github.command: Required`: every error names its field. */
export function formatIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 10)
    .map((issue) => {
      const path = issue.path.map(String).join(".") || "(root)";
      const keys = "keys" in issue && Array.isArray(issue.keys) ? ` (${issue.keys.join(", ")})` : "";
      return `${path}: ${issue.message}${keys}`;
    })
    .join("; ");
}
