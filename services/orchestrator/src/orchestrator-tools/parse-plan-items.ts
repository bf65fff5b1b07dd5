import { z } from "zod";
import { PlanItemSchema, type PlanItem } from "../session/session-record.js";

const statusWords: Record<string, PlanItem["status"]> = {
  pending: "pending",
  todo: "pending",
  " ": "pending",
  in_progress: "in_progress",
  "in progress": "in_progress",
  doing: "in_progress",
  "~": "in_progress",
  completed: "completed",
  done: "completed",
  x: "completed",
};

/**
 * `update_plan`'s items arrive as text (XML protocol) or as an array (native calls): a JSON array
 * of {step,status}, or one step per line as `[status] step` / `- [x] step`. Returns an error
 * message for the model when it cannot be read or has more than one step in progress.
 */
export function parsePlanItems(raw: unknown): { items: PlanItem[] } | { error: string } {
  let items: PlanItem[] = [];
  const asArray = typeof raw === "string" && raw.trim().startsWith("[") && raw.trim().includes("{") ? safeJson(raw) : raw;
  if (Array.isArray(asArray)) {
    const parsed = z.array(PlanItemSchema).safeParse(asArray);
    if (!parsed.success) return { error: "items must be a list of {step, status} with status pending, in_progress or completed." };
    items = parsed.data;
  } else if (typeof raw === "string") {
    for (const line of raw.split("\n")) {
      const match = /^\s*(?:[-*]\s*)?\[([^\]]*)\]\s*(.+?)\s*$/.exec(line);
      if (!match) {
        if (line.trim() !== "") items.push({ step: line.replace(/^\s*[-*]\s*/, "").trim(), status: "pending" });
        continue;
      }
      const status = statusWords[match[1].trim().toLowerCase() || " "];
      if (!status) return { error: `Unknown status [${match[1]}]; use pending, in_progress or completed.` };
      items.push({ step: match[2], status });
    }
  } else {
    return { error: "items is required: one step per line as `[status] step`." };
  }
  if (items.filter((item) => item.status === "in_progress").length > 1) {
    return { error: "At most one step may be in_progress; mark the others pending or completed." };
  }
  return { items: items.slice(0, 50) };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
