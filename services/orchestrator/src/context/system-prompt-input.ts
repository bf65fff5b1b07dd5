/** What the system contract is built from: the mode, the offered tools, the workspace, the date, the tier. */
import type { PromptTier, ToolDescriptor, ToolFormat } from "@aide/contracts";

export type AgentMode = "plan" | "act";

export type SystemPromptInput = {
  mode: AgentMode;
  tools: ToolDescriptor[];
  workspace: string;
  now: Date;
  /** "compact" for model windows up to 8k tokens (compact-prompt.ts); default "full". */
  tier?: PromptTier;
  /** The few_shot strategy: the compact tier adds one good example call per offered tool (the full tier always has them). */
  fewShot?: boolean;
  /** A real file of the workspace for the few_shot read_file example (strategies/few-shot-file.ts); absent: a placeholder. */
  fewShotFile?: string;
  /** The run's test command for the few_shot run_command example (resolve-test-command.ts); absent: a placeholder. */
  fewShotCommand?: string;
  /** `native`: the model calls tools in its chat template's own format, which lists the tools itself; absent or `xml`: the XML text protocol. */
  toolFormat?: ToolFormat;
};
