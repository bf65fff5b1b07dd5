import type { AgentMode } from "./system-prompt-input.js";

/**
 * Injected into the next user message after a mode switch, so the model is not confused by a
 * changed tool list (Cline's `<mode_notice>`). History is kept across the switch.
 */
export function modeNotice(mode: AgentMode): string {
  return mode === "act"
    ? "<mode_notice>The person switched to ACT mode. You may now edit files and run commands (each may need approval). Continue the task from where you are.</mode_notice>"
    : "<mode_notice>The person switched to PLAN mode. Only read-only tools are available now; write tools and commands will be refused. Plan, and call switch_to_act_mode when ready.</mode_notice>";
}
