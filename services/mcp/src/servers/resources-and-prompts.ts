import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { z } from "zod";

/** The names of the two tools aide adds for a server's resources and prompts (a real tool of the same name wins). */
export const readResourceTool = "aide_read_resource";
export const getPromptTool = "aide_get_prompt";

export interface ExtraTool {
  tool: string;
  description: string;
  parameters: Record<string, unknown>;
  validator: z.ZodTypeAny;
  /** Runs the request; the result has the shape of a CallToolResult, so it is formatted and capped the same way. */
  run(client: Client, args: Record<string, unknown>, options: { timeout: number; signal: AbortSignal }): Promise<{ content: unknown[]; isError?: boolean }>;
}

const listed = 20;

/**
 * A server's resources and prompts, offered as two tools of that server: listed in the tool's
 * description (the first 20), read on request, through the same gate and the same untrusted
 * wrapping as its tools (the text comes from the server either way).
 */
export async function resourceAndPromptTools(client: Client): Promise<ExtraTool[]> {
  const capabilities = client.getServerCapabilities() ?? {};
  const extras: ExtraTool[] = [];
  if (capabilities.resources) {
    const page = await client.listResources({}, { timeout: 30_000 }).catch(() => ({ resources: [] as Array<{ uri: string; name?: string }>, nextCursor: undefined }));
    const names = page.resources.slice(0, listed).map((resource) => `${resource.uri}${resource.name ? ` (${resource.name})` : ""}`);
    const more = page.resources.length > listed || page.nextCursor !== undefined ? "; and more" : "";
    extras.push({
      tool: readResourceTool,
      description: `Read one resource of this MCP server by URI. Some of its resources: ${names.join(", ") || "(none listed)"}${more}.`,
      parameters: { type: "object", properties: { uri: { type: "string", description: "The resource's URI." } }, required: ["uri"], additionalProperties: false },
      validator: z.object({ uri: z.string().min(1).max(4096) }).strict(),
      async run(target, args, options) {
        const result = await target.readResource({ uri: String(args.uri) }, options);
        return { content: result.contents.map((resource) => ({ type: "resource", resource })) };
      },
    });
  }
  if (capabilities.prompts) {
    const page = await client.listPrompts({}, { timeout: 30_000 }).catch(() => ({ prompts: [] as Array<{ name: string; description?: string }> }));
    const prompts = page.prompts.slice(0, listed);
    if (prompts.length > 0) {
      extras.push({
        tool: getPromptTool,
        description: `Get one prompt of this MCP server, filled with its arguments. Its prompts: ${prompts.map((prompt) => `${prompt.name}${prompt.description ? ` (${prompt.description.slice(0, 80)})` : ""}`).join(", ")}.`,
        parameters: {
          type: "object",
          properties: {
            name: { type: "string", enum: prompts.map((prompt) => prompt.name) },
            arguments: { type: "object", description: "The prompt's arguments, as strings.", additionalProperties: { type: "string" } },
          },
          required: ["name"],
          additionalProperties: false,
        },
        validator: z
          .object({
            name: z.enum(prompts.map((prompt) => prompt.name) as [string, ...string[]]),
            arguments: z.preprocess((value) => (typeof value === "string" ? safeJson(value) : value), z.record(z.string(), z.string())).optional(),
          })
          .strict(),
        async run(target, args, options) {
          const result = await target.getPrompt({ name: String(args.name), ...(args.arguments ? { arguments: args.arguments as Record<string, string> } : {}) }, options);
          const text = result.messages.map((message) => {
            const content = message.content as { type: string; text?: string };
            return `[${message.role}] ${content.type === "text" ? (content.text ?? "") : `(a ${content.type} part, not shown)`}`;
          });
          return { content: [{ type: "text", text: [result.description ? `(${result.description})` : "", ...text].filter(Boolean).join("\n") }] };
        },
      });
    }
  }
  return extras;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
