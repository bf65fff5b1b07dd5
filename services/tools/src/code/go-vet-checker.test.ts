import { describe, expect, it } from "vitest";
import { parseGoVet } from "./go-vet-checker.js";

const text = 'package main\n\nimport "fmt"\n\nfunc add(a int, b int) int {\n\treturn sum\n}\n\nfunc main() {\n\tfmt.Printf("%d", s)\n}\n';

describe("parseGoVet", () => {
  it("keeps go vet's lines about the checked file (compile errors and vet findings), 1-based as Go prints them", () => {
    const output = "# example.com/calc\nvet: ./main.go:6:9: undefined: sum\n./main.go:10:2: fmt.Printf format %d has arg s of wrong type string\n./other.go:3:1: not this file\n";
    expect(parseGoVet(output, "/ws/main.go", text)).toEqual([
      { line: 6, column: 9, code: "go-vet", severity: "error", message: "undefined: sum", text: "return sum" },
      { line: 10, column: 2, code: "go-vet", severity: "error", message: "fmt.Printf format %d has arg s of wrong type string", text: 'fmt.Printf("%d", s)' },
    ]);
  });

  it("reads go's name for the overlay's file as the checked file (what real go vet -overlay prints), and no file of the same name elsewhere", () => {
    // As go 1.26 printed it for an overlay at /tmp/aide-govet-x/v1/main.go, run in /ws/cmd.
    const output = "# example.com/calc\n# [example.com/calc]\nvet: ../../tmp/aide-govet-x/v1/main.go:6:9: undefined: sum\n../lib/main.go:2:1: another package's main.go\n";
    expect(parseGoVet(output, "/ws/cmd/main.go", text, "/ws/cmd", ["/tmp/aide-govet-x/v1/main.go"])).toEqual([
      { line: 6, column: 9, code: "go-vet", severity: "error", message: "undefined: sum", text: "return sum" },
    ]);
  });
});
