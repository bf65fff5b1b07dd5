import { describe, expect, it } from "vitest";
import { scriptFreeAlternative, workspaceScriptOf } from "../src/workspace-scripts.js";

describe("a package install's --ignore-scripts form (the approval's alternative)", () => {
  it.each([
    ["npm install", "npm install --ignore-scripts"],
    ["npm i lodash", "npm i lodash --ignore-scripts"],
    ["npm ci", "npm ci --ignore-scripts"],
    ["npm clean-install --no-audit", "npm clean-install --no-audit --ignore-scripts"],
    ["pnpm install", "pnpm install --ignore-scripts"],
    ["pnpm add left-pad", "pnpm add left-pad --ignore-scripts"],
    ["yarn", "yarn --ignore-scripts"],
    ["yarn install --frozen-lockfile", "yarn install --frozen-lockfile --ignore-scripts"],
    ["yarn add left-pad", "yarn add left-pad --ignore-scripts"],
  ])("%s → %s, its rule the same words", (command, alternative) => {
    expect(scriptFreeAlternative(command)).toMatchObject({ id: "ignore_scripts", command: alternative, rule: alternative });
  });

  it.each([
    ["npm test", "not an install"],
    ["npm install-test", "its test script still runs"],
    ["npm rebuild", "running the scripts is its purpose"],
    ["npm install && npm test", "shell operators: the flag would land on the last command"],
    ["npm install $(cat deps)", "a substitution"],
    ["npm install -- --foo", "after -- the flag is an operand"],
    ["npm --prefix app install", "options before the subcommand"],
    ["npm install --ignore-scripts", "already without scripts"],
    ["npm install --no-ignore-scripts", "the person's flag says otherwise"],
    ["npx something", "not a package manager"],
    ["npm install l\u200bodash", "an invisible character"],
  ])("%s: none (%s)", (command) => {
    expect(scriptFreeAlternative(command)).toBeUndefined();
  });

  it("Yarn 2+ has no --ignore-scripts: nothing is offered there", () => {
    expect(scriptFreeAlternative("yarn install", { yarnBerry: true })).toBeUndefined();
    expect(scriptFreeAlternative("npm ci", { yarnBerry: true })).toMatchObject({ command: "npm ci --ignore-scripts" });
  });

  it("the alternative runs no workspace script, so a plain rule covers it; the flag turned off or after -- still runs them", () => {
    for (const command of ["npm ci --ignore-scripts", "npm install --ignore-scripts=true", "pnpm install --ignore-scripts", "yarn install --ignore-scripts", "yarn add x --ignore-scripts"]) {
      expect(workspaceScriptOf(command), command).toBeUndefined();
    }
    for (const command of [
      "npm ci",
      "npm ci --ignore-scripts false",
      "npm ci --ignore-scripts --ignore-scripts=false",
      "npm ci --no-ignore-scripts",
      "npm install -- --ignore-scripts",
      "npm install-test --ignore-scripts",
      "npm run build --ignore-scripts",
      "yarn --ignore-scripts",
    ]) {
      expect(workspaceScriptOf(command), command).toBeDefined();
    }
  });
});
