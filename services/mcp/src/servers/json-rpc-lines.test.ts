import { describe, expect, it } from "vitest";
import { JsonRpcLines, LineTooLongError } from "./json-rpc-lines.js";

const bytes = (text: string) => Buffer.from(text, "utf8");

describe("JsonRpcLines", () => {
  it("gives every line a chunk completes, in order, and keeps the unfinished rest", () => {
    const lines = new JsonRpcLines();
    expect(lines.push(bytes('{"a":1}\n{"b":2}\n{"c"'))).toEqual(['{"a":1}', '{"b":2}']);
    expect(lines.push(bytes(":3"))).toEqual([]);
    expect(lines.push(bytes("}\n"))).toEqual(['{"c":3}']);
  });

  it("drops a trailing CR and joins a multi-byte character split across chunks", () => {
    const lines = new JsonRpcLines();
    const whole = bytes('"é"\r\n');
    expect(lines.push(whole.subarray(0, 2))).toEqual([]);
    expect(lines.push(whole.subarray(2))).toEqual(['"é"']);
  });

  it("refuses a line longer than its bound, even in pieces, and starts clean after", () => {
    const lines = new JsonRpcLines(16);
    expect(lines.push(bytes("x".repeat(10)))).toEqual([]);
    expect(() => lines.push(bytes("x".repeat(10)))).toThrow(LineTooLongError);
    expect(lines.push(bytes("ok\n"))).toEqual(["ok"]);
    expect(() => lines.push(bytes(`${"y".repeat(17)}\n`))).toThrow(LineTooLongError);
    expect(lines.push(bytes("16 bytes exactly\n"))).toEqual(["16 bytes exactly"]);
  });
});
