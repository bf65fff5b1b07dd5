import type { FastifyInstance } from "fastify";
import { aideError } from "@aide/contracts";

/** Keys that name an object's prototype: `__proto__`, and `prototype` under a `constructor` key. */
function prototypeKeyPath(value: unknown, path: string[] = []): string | undefined {
  if (value === null || typeof value !== "object") return undefined;
  for (const key of Object.keys(value)) {
    const child = (value as Record<string, unknown>)[key];
    if (key === "__proto__") return [...path, key].join(".");
    if (key === "constructor" && child !== null && typeof child === "object" && Object.hasOwn(child, "prototype")) return [...path, key, "prototype"].join(".");
    const found = prototypeKeyPath(child, [...path, key]);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * The gateway's parser of `application/json` bodies, in place of Fastify's: a body that is not
 * JSON is BAD_JSON with the parser's own words, and a body that is JSON but holds a key naming a
 * prototype (`__proto__`, `constructor.prototype`) is a VALIDATION error that names the key —
 * Fastify's parser refused those too, but as "not valid JSON", which they are.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
    const text = String(body);
    if (text.trim() === "") {
      done(aideError("BAD_JSON", { detail: "the body is empty" }), undefined);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      done(aideError("BAD_JSON", { detail: (error as Error).message }), undefined);
      return;
    }
    const key = prototypeKeyPath(value);
    if (key !== undefined) {
      done(aideError("VALIDATION", { detail: `body.${key}: a key that names a prototype is not accepted` }), undefined);
      return;
    }
    done(null, value);
  });
}
