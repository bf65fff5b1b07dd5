import { createInterface, type Interface } from "node:readline";

/** Asks questions on the terminal, one at a time. */
export function createLinePrompt(input: NodeJS.ReadableStream, output: NodeJS.WritableStream) {
  let rl: Interface | undefined;
  return {
    ask(question: string): Promise<string> {
      rl ??= createInterface({ input, output, terminal: false });
      return new Promise((resolve) => rl!.question(question, (answer) => resolve(answer.trim())));
    },
    close() {
      rl?.close();
      rl = undefined;
    },
  };
}
export type LinePrompt = ReturnType<typeof createLinePrompt>;
