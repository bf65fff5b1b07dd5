import { escapedCount, renderUntrusted } from "@aide/contracts";

/**
 * Text from an MCP server (a tool's description, a result, a resource, a prompt) as the model may
 * read it: the model target of the one rendering, invisible characters included, exactly as the
 * built-in tools' output (`⟨ESC⟩`, `⟨U+E0049⟩`). A person can then see in the transcript every
 * character the model reads.
 */
export function renderServerText(text: string): { text: string; hidden: number } {
  const rendered = renderUntrusted(text, { target: "model", invisible: true });
  return { text: rendered.text, hidden: escapedCount(rendered) };
}

/** The annotation keys of a JSON Schema whose text the model reads as prose. */
const proseKeys = new Set(["description", "title", "$comment"]);

/**
 * A tool's input schema with its descriptions and titles rendered (at any depth), and how many
 * hidden characters the whole schema held. Names, enum values and patterns are left as they are
 * (they decide what a call must send) but their hidden characters count too.
 */
export function renderSchemaText(schema: Record<string, unknown>): { schema: Record<string, unknown>; hidden: number } {
  let hidden = 0;
  const count = (text: string) => {
    hidden += renderServerText(text).hidden;
  };
  const walk = (node: unknown, key: string | undefined): unknown => {
    if (typeof node === "string") {
      if (key !== undefined && proseKeys.has(key)) {
        const rendered = renderServerText(node);
        hidden += rendered.hidden;
        return rendered.text;
      }
      count(node);
      return node;
    }
    if (Array.isArray(node)) return node.map((item) => walk(item, undefined));
    if (node !== null && typeof node === "object") {
      return Object.fromEntries(
        Object.entries(node).map(([name, inner]) => {
          count(name);
          return [name, walk(inner, name)];
        }),
      );
    }
    return node;
  };
  return { schema: walk(schema, undefined) as Record<string, unknown>, hidden };
}
