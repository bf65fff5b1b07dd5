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
  constructor(
    private readonly checkers: {
      typescript: Checker;
      python?: Checker;
      /** go vet when `go` is on PATH, else the syntax checker with its reason. */
      go?: ChosenChecker;
    },
  ) {}

  /** The checker for a workspace path, or undefined when no checker reads that file type. */
  forPath(path: string): ChosenChecker | undefined {
    if (typescriptFile.test(path) && !path.endsWith(".d.ts")) return { checker: this.checkers.typescript };
    if (pythonFile.test(path) && this.checkers.python !== undefined) return { checker: this.checkers.python };
    if (goFile.test(path)) return this.checkers.go;
    return undefined;
  }

  /** The file types checked, for messages. */
  describe(): string {
    return [".ts/.tsx/.mts/.cts (typescript)", ...(this.checkers.python !== undefined ? [".py/.pyi (pyright)"] : []), ...(this.checkers.go !== undefined ? [`.go (${this.checkers.go.checker.source})`] : [])].join(", ");
  }

  close(): void {
    this.checkers.typescript.close();
    this.checkers.python?.close();
    this.checkers.go?.checker.close();
  }
}
