/**
 * The OpenAPI links of the gateway's document: how a client that follows the API's own answers
 * gets from one operation to the next (start a session, then read its status, events and costs,
 * decide its approvals, send a message, switch its mode, list and diff its checkpoints). Keyed by
 * the operation whose 200 answer they start from; values are runtime expressions on that answer.
 */
export interface OperationLink {
  operationId: string;
  description: string;
  parameters?: Record<string, string>;
  requestBody?: Record<string, unknown>;
}

/** The links that start from a session id found at `pointer` in an answer. */
function sessionLinks(pointer: string): Record<string, OperationLink> {
  const id = `$response.body#${pointer}`;
  return {
    status: { operationId: "getAgentStatus", description: "The session's status", parameters: { id } },
    costs: { operationId: "getAgentCosts", description: "The session's token and time costs", parameters: { session: id } },
    checkpoints: { operationId: "getCheckpoints", description: "The session's checkpoints", parameters: { session: id } },
    abort: { operationId: "postAgentAbort", description: "Stop the session's run", requestBody: { session: id } },
    message: { operationId: "postAgentMessage", description: "Send the session a follow-up message", requestBody: { session: id, text: "Go on." } },
    mode: { operationId: "postAgentMode", description: "Switch the session to plan mode", requestBody: { session: id, mode: "plan" } },
    autoApprove: { operationId: "postAgentAutoApprove", description: "Change the session's auto-approve rules", requestBody: { session: id, edits: false } },
    panelLink: { operationId: "postPanelLink", description: "A panel login link that opens the session", requestBody: { session: id } },
  };
}

export const operationLinks: Record<string, Record<string, OperationLink>> = {
  postAgentStart: sessionLinks("/session"),
  getAgentSessions: sessionLinks("/sessions/0/id"),
  getAgentStatus: {
    ...sessionLinks("/id"),
    decision: {
      operationId: "postAgentDecision",
      description: "Reject the session's first pending approval",
      requestBody: { session: "$response.body#/id", approval: "$response.body#/approvals_pending/0/id", decision: "reject" },
    },
  },
  getCheckpoints: {
    diff: {
      operationId: "getCheckpointsDiff",
      description: "What changed since the newest checkpoint",
      parameters: { session: "$response.body#/checkpoints/0/session", from: "$response.body#/checkpoints/0/id" },
    },
    restorePlan: {
      operationId: "postCheckpointsRestore",
      description: "The plan of restoring the newest checkpoint (not applied: no confirm)",
      requestBody: { session: "$response.body#/checkpoints/0/session", checkpoint: "$response.body#/checkpoints/0/id", confirm: false },
    },
  },
  getEvalLatest: {
    file: { operationId: "getEvalLatestName", description: "The run's first file", parameters: { name: "$response.body#/files/0" } },
  },
};
