import { PanelLinkBodySchema, PanelLinkReplySchema } from "@aide/contracts";
import { defineRoute, type RouteDefinition } from "../route-definition.js";

/** `POST /api/panel/link` (bearer token): a one-time login link for the web panel (`aide open`). */
export function panelLinkRoutes(): RouteDefinition[] {
  return [
    defineRoute({
      method: "POST",
      url: "/api/panel/link",
      summary: "A single-use, short-lived login link for the web panel (the token stays out of the URL)",
      body: PanelLinkBodySchema,
      reply: PanelLinkReplySchema,
      errors: [],
      async handle({ body }, { loginCodes }) {
        const { code, expiresAt } = loginCodes.mint();
        const fragment = body.session ? `#session=${body.session}` : "";
        return PanelLinkReplySchema.parse({ path: `/?code=${code}${fragment}`, expires_at: new Date(expiresAt).toISOString() });
      },
    }),
  ];
}
