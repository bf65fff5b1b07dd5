import { describe, expect, it } from "vitest";
import { parseGoVet } from "./go-vet-checker.js";

describe("parseGoVet", () => {
  it("keeps go vet's lines about the checked file (compile errors and vet findings), 1-based as Go prints them", () => {
    const output = "# example.com/calc\nvet: ./main.go:6:9: undefined: sum\n./main.go:10:2: fmt.Printf format %d has arg s of wrong type string\n./other.go:3:1: not this file\n";
    const text = "package main\n\nimport \"fmt\"\n\nfunc add(a int, b int) int {\n\treturn sum\n}\n\nfunc main() {\n\tfmt.Printf(\"%d\", s)\n}\n";
    expect(parseGoVet(output, "/ws/main.go", text)).toEqual([
      { line: 6, column: 9, code: "go-vet", severity: "error", message: "undefined: sum", text: "return sum" },
      { line: 10, column: 2, code: "go-vet", severity: "error", message: "fmt.Printf format %d has arg s of wrong type string", text: 'fmt.Printf("%d", s)' },
    ]);
  });
});
