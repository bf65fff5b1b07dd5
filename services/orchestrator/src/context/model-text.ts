import { renderUntrusted } from "@aide/contracts";

/**
 * The person's and the model's own text as the transcript keeps it for the model: C0/C1 controls
 * (but tab and newline) and a lone CR as visible tokens (`⟨ESC⟩`), so no message to the model
 * holds a control byte the person's screen did not show. Applied once, where the text enters the
 * transcript; tool results are rendered where they are wrapped (`wrapToolResult`).
 */
export function modelText(text: string): string {
  return renderUntrusted(text, { target: "model" }).text;
}
