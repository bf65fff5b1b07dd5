export type MistakeVerdict = { exceeded: boolean; count: number };

export type NoToolCallVerdict = { action: "nudge"; message: string } | { action: "fail"; message: string };

export const NO_TOOL_CALL_NUDGE =
  "Your reply contained no tool call. Every reply must use exactly the XML tool format, for example " +
  "<read_file>\n<path>README.md</path>\n</read_file>. If the task is finished, call <attempt_completion> with the result.";

/** The same reminder for a model that calls tools in its chat template's own format (tool_format native). */
export const NO_TOOL_CALL_NUDGE_NATIVE =
  "Your reply contained no tool call. Every reply must call a tool: a JSON object with the tool's name and arguments, " +
  'for example <tool_call>\n{"name": "list_dir", "arguments": {}}\n</tool_call>. If the task is finished, call attempt_completion with the result.';

/**
 * Consecutive mistakes (malformed calls, refused calls, failed validation) with a limit (default 3);
 * any well-formed call that runs resets the streak. A reply with no tool call gets one nudge per
 * streak; a second one in a row fails the run.
 */
export class MistakeCounter {
  private consecutive = 0;
  private nudged = false;

  constructor(private readonly limit = 3) {}

  get count(): number {
    return this.consecutive;
  }

  recordMistake(): MistakeVerdict {
    this.consecutive += 1;
    return { exceeded: this.consecutive >= this.limit, count: this.consecutive };
  }

  recordSuccess(): void {
    this.consecutive = 0;
    this.nudged = false;
  }

  noToolCall(nudge = NO_TOOL_CALL_NUDGE): NoToolCallVerdict {
    const firstTime = !this.nudged;
    this.nudged = true;
    const { exceeded } = this.recordMistake();
    if (firstTime && !exceeded) return { action: "nudge", message: nudge };
    return {
      action: "fail",
      message: exceeded
        ? `${this.consecutive} consecutive mistakes: the model did not produce a usable tool call.`
        : "The model replied again without a tool call after being reminded of the tool format.",
    };
  }
}
