/**
 * The docs pages against the code they describe: the README stays a front door that links every
 * page; the architecture page names every bus subject and event type the contracts define; the
 * deployment page names every variable `aide up` hands to a service. Reads files only.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const read = (path: string) => readFileSync(join(root, path), "utf8");
const contractSources = readdirSync(join(root, "contracts", "src"))
  .filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts"))
  .map((name) => read(`contracts/src/${name}`));

/** Subject literals of the contracts: `agent.<area>.<verb>` in quotes. */
export function subjectLiterals(sources: string[]): string[] {
  const found = sources.flatMap((text) => [...text.matchAll(/["'`](agent\.(?:cmd|model|tools|checkpoints|mcp|audit)\.[a-z_]+)["'`]/g)].map((match) => match[1]));
  return [...new Set(found)].sort();
}

export function eventTypes(source: string): string[] {
  return [...source.matchAll(/\bevent\(\s*"([a-z_]+\.[a-z_]+)"/g)].map((match) => match[1]).sort();
}

/** The `AIDE_*` names the service table sets for a service or passes through from `aide up`'s environment. */
export function serviceVariables(source: string): string[] {
  const found = [...source.matchAll(/\b(AIDE_[A-Z0-9_]+)\b/g)].map((match) => match[1]);
  return [...new Set(found)].sort();
}

describe("the README", () => {
  const readme = read("README.md");

  it("is a page read in five minutes", () => {
    expect(readme.split("\n").length).toBeLessThan(250);
  });

  it("links every docs page, and the settings page", () => {
    const pages = readdirSync(join(root, "docs")).filter((name) => name.endsWith(".md"));
    const missing = [...new Set([...pages, "settings.md"])].filter((page) => !readme.includes(`](docs/${page})`));
    expect(missing).toEqual([]);
  });
});

describe("docs/architecture.md", () => {
  const page = read("docs/architecture.md");

  it("names every bus subject of the contracts", () => {
    const subjects = subjectLiterals(contractSources);
    expect(subjects.length).toBeGreaterThan(30);
    expect(subjects.filter((subject) => !page.includes(`\`${subject}\``))).toEqual([]);
  });

  it("names every event type", () => {
    const types = eventTypes(read("contracts/src/events.ts"));
    expect(types.length).toBeGreaterThan(20);
    expect(types.filter((type) => !page.includes(`\`${type}\``))).toEqual([]);
  });

  it("names the six services", () => {
    const names = /serviceNames = \[([^\]]+)\]/.exec(read("contracts/src/subjects.ts"))![1].match(/[a-z]+/g)!;
    expect(names).toHaveLength(6);
    expect(names.filter((name) => !page.includes(`| ${name} |`))).toEqual([]);
  });
});

describe("docs/deployment.md", () => {
  it("names every variable aide up hands to a service", () => {
    const variables = serviceVariables(read("cli/src/supervisor/service-table.ts"));
    expect(variables.length).toBeGreaterThan(40);
    const page = read("docs/deployment.md");
    expect(variables.filter((name) => !page.includes(`\`${name}\``))).toEqual([]);
  });
});

describe("the extractors", () => {
  it("find what they look for and nothing else", () => {
    expect(subjectLiterals(['const a = { x: "agent.cmd.start", y: "agent.evt" };', "`agent.tools.close` 'agent.mcp.call'"])).toEqual(["agent.cmd.start", "agent.mcp.call", "agent.tools.close"]);
    expect(eventTypes('event("run.created", x); event(\n  "tool.completed", y); other("a.b")')).toEqual(["run.created", "tool.completed"]);
    expect(serviceVariables('const a = ["AIDE_X_MS", "PATH"]; env.AIDE_Y')).toEqual(["AIDE_X_MS", "AIDE_Y"]);
  });
});
