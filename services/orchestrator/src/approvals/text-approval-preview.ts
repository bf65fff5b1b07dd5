import type { ToolPreview } from "@aide/contracts";
import { digestOf } from "../events/sanitize-args.js";
import type { BatchCall } from "../session/session-record.js";

/**
 * The preview of an approval the orchestrator words itself (a mode switch, a memory change, a
 * secret-file read): no diff, no flags, only the sentence the person decides on, bound to the
 * call's arguments by their digest like any tool preview.
 */
export function textApprovalPreview(call: BatchCall, fields: { kind: ToolPreview["kind"]; mutating: boolean; command: string; paths?: string[] }): ToolPreview {
  return {
    call_id: call.id,
    name: call.name,
    kind: fields.kind,
    mutating: fields.mutating,
    command: fields.command,
    paths: fields.paths ?? [],
    protected: [],
    invisible: [],
    network_suspected: false,
    args_digest: digestOf(JSON.stringify(call.arguments)),
    file_digests: {},
    notices: [],
  };
}
