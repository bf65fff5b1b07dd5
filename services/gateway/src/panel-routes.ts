import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { FastifyInstance, FastifyReply } from "fastify";
import { aideError } from "@aide/contracts";
import { sessionCookieName, type BrowserSessions } from "./browser-sessions.js";
import type { LoginCodes } from "./login-codes.js";
import { createRateLimiter } from "./rate-limiter.js";
import { cookieValue, secretsEqual } from "./token-check.js";

/**
 * No remote anything: scripts, styles, images and connections only from the gateway itself, so a
 * model's output rendered in the panel cannot load (and leak through) a remote image URL.
 */
export const panelContentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const contentTypes: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".svg": "image/svg+xml",
};

const loginPage = `<!doctype html><html><head><meta charset="utf-8"><title>aide</title></head>
<body><h1>aide</h1><p>Open a login link: run <code>aide open</code> and click the link it prints (each link works once, for a minute).</p></body></html>`;

export interface PanelOptions {
  /** services/gateway/panel: `static/` (html, css) and `dist/` (compiled scripts). */
  panelDir: string;
  token: string;
  browserSessions: BrowserSessions;
  loginCodes: LoginCodes;
  /** The gateway serves HTTPS: the session cookie is `Secure`. */
  secureCookie?: boolean;
}

/**
 * The panel runs the one rendering of untrusted text from `contracts/` (a pure module without
 * imports), served as `/panel/render-untrusted.js`, not a copy of it.
 */
function contractsScript(name: string): string {
  return join(dirname(createRequire(import.meta.url).resolve("@aide/contracts")), name);
}

/**
 * The browser bundles of the libraries the panel uses (diffs, highlighting, the token chart), by
 * the name the panel asks for: resolved from node_modules once at start, never from a request.
 */
const vendorFiles: Record<string, { pkg: string; file: string }> = {
  "diff2html-ui.min.js": { pkg: "diff2html", file: "bundles/js/diff2html-ui.min.js" },
  "diff2html.min.css": { pkg: "diff2html", file: "bundles/css/diff2html.min.css" },
  "hljs-github.min.css": { pkg: "highlight.js", file: "styles/github.min.css" },
  "uPlot.iife.min.js": { pkg: "uplot", file: "dist/uPlot.iife.min.js" },
  "uPlot.min.css": { pkg: "uplot", file: "dist/uPlot.min.css" },
};

function vendorPath(pkg: string, file: string): string {
  return join(dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`)), file);
}

/** Loads the panel's files once: a fixed list, so no request path ever reaches the file system. */
function loadPanelFiles(panelDir: string): Map<string, { body: Buffer; type: string }> {
  const files = new Map<string, { body: Buffer; type: string }>();
  const rendering = contractsScript("render-untrusted.js");
  if (existsSync(rendering)) files.set("render-untrusted.js", { body: readFileSync(rendering), type: contentTypes[".js"] });
  for (const [name, { pkg, file }] of Object.entries(vendorFiles)) {
    const path = vendorPath(pkg, file);
    if (existsSync(path)) files.set(name, { body: readFileSync(path), type: contentTypes[name.slice(name.lastIndexOf("."))] });
  }
  for (const folder of ["static", "dist"]) {
    const dir = join(panelDir, folder);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      const extension = name.slice(name.lastIndexOf("."));
      const type = contentTypes[extension];
      if (type && !name.endsWith(".d.ts")) files.set(name, { body: readFileSync(join(dir, name)), type });
    }
  }
  return files;
}

/**
 * `GET /` is the one place a credential is accepted in the query: `/?code=…` (a one-time code from
 * `POST /api/panel/link`, what `aide open` prints) or `/?token=…` (the bearer token itself) sets an
 * HttpOnly SameSite=Strict session cookie and redirects to `/`, so the credential leaves the address bar.
 * `GET /s/<session>` is the same page with that session open (the panel reads its address), so a
 * reload or a second tab resumes it.
 */
export function registerPanelRoutes(app: FastifyInstance, options: PanelOptions): void {
  const files = loadPanelFiles(options.panelDir);
  // The login route has no credential to key a limit on; failed attempts share one budget.
  const failedLogins = createRateLimiter({ max: 20, windowMs: 60_000 });
  const sendIndex = (cookie: string | undefined, reply: FastifyReply) => {
    if (!options.browserSessions.valid(cookieValue(cookie, sessionCookieName))) {
      return reply.code(401).type("text/html; charset=utf-8").send(loginPage);
    }
    const index = files.get("index.html");
    if (!index) throw aideError("NOT_FOUND", { detail: "the web panel is not built" });
    return reply.type(index.type).header("cache-control", "no-cache").send(index.body);
  };
  app.get("/", async (request, reply) => {
    const { token, code } = request.query as Record<string, unknown>;
    if (typeof token === "string" || typeof code === "string") {
      const accepted = typeof code === "string" ? options.loginCodes.consume(code) : secretsEqual(token as string, options.token);
      if (!accepted) {
        const retryAfter = failedLogins.take("login");
        if (retryAfter > 0) {
          reply.header("retry-after", String(retryAfter));
          throw aideError("RATE_LIMITED", { retryAfter });
        }
        throw aideError("UNAUTHORIZED");
      }
      const session = options.browserSessions.create();
      reply.header("set-cookie", `${sessionCookieName}=${session.id}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${session.maxAgeSeconds}${options.secureCookie ? "; Secure" : ""}`);
      return reply.code(303).header("location", "/").send();
    }
    return sendIndex(request.headers.cookie, reply);
  });
  app.get("/s/:session", async (request, reply) => {
    if (!/^[A-Za-z0-9_-]{1,128}$/.test((request.params as { session: string }).session)) throw aideError("NOT_FOUND", { detail: "no such session address" });
    return sendIndex(request.headers.cookie, reply);
  });
  app.get("/panel/:name", async (request, reply) => {
    const name = (request.params as { name: string }).name;
    const file = files.get(name);
    if (!file) throw aideError("NOT_FOUND", { detail: "no such panel file" });
    return reply.type(file.type).header("cache-control", "no-cache").send(file.body);
  });
}
