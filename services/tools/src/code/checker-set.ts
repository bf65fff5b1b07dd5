import type { Checker } from "./checker.js";
import type { NoTypeChecker } from "./syntax-checker.js";

/** A checker and, when it is only the syntax fallback, why no type checker ran. */
export interface ChosenChecker {
  checker: Checker;
  /** Set when this is not a type check (the language's checker is not on the machine). */
  unavailable?: NoTypeChecker;
}

const typescriptFile = /\.(ts|tsx|mts|cts)$/;
const pythonFile = /\.pyi?$/;
const goFile = /\.go$/;

/** The checkers of the service by language: TypeScript, Python (pyright), Go (go vet, or the syntax fallback). */
export class CheckerSet {
  private go: ChosenChecker | undefined;

  constructor(
    private readonly checkers: {
      typescript: Checker;
      python?: Checker;
      /** go vet when `go` is on PATH, else the syntax checker with its reason; a function is called once, on the first .go file (finding `go` costs a process). */
      go?: ChosenChecker | (() => ChosenChecker);
    },
  ) {}

  private goChecker(): ChosenChecker | undefined {
    const { go } = this.checkers;
    if (this.go === undefined && go !== undefined) this.go = typeof go === "function" ? go() : go;
    return this.go;
  }

  /** The checker for a workspace path, or undefined when no checker reads that file type. */
  forPath(path: string): ChosenChecker | undefined {
    if (typescriptFile.test(path) && !path.endsWith(".d.ts")) return { checker: this.checkers.typescript };
    if (pythonFile.test(path) && this.checkers.python !== undefined) return { checker: this.checkers.python };
    if (goFile.test(path)) return this.goChecker();
    return undefined;
  }

  /** The file types checked, for messages. */
  describe(): string {
    return [
      ".ts/.tsx/.mts/.cts (typescript)",
      ...(this.checkers.python !== undefined ? [".py/.pyi (pyright)"] : []),
      ...(this.checkers.go !== undefined ? [".go (gopls, or go vet without it, or syntax only without Go)"] : []),
    ].join(", ");
  }

  close(): void {
    this.checkers.typescript.close();
    this.checkers.python?.close();
    this.go?.checker.close();
  }
}
