/** The closing lines of a run: files changed, commands run, checkpoints, evidence. */
export function runSummary(payload: { files_changed?: string[]; commands_run?: number; checkpoints?: string[]; evidence?: string[] }): string {
  const list = (items: string[] | undefined) => (items && items.length > 0 ? items.join(", ") : "none");
  return [
    `  files changed: ${list(payload.files_changed)}`,
    `  commands run:  ${payload.commands_run ?? 0}`,
    `  checkpoints:   ${(payload.checkpoints ?? []).map((id) => id.slice(0, 10)).join(", ") || "none"}`,
    `  evidence:      ${list(payload.evidence)}`,
  ].join("\n");
}
