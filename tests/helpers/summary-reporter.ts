import { relative } from "node:path";
import type { Reporter, TestCase, TestModule, TestSuite } from "vitest/node";

/** How many of the slowest test files the summary names. */
const SLOWEST = 8;

/** Whether the test, or a suite or module around it, recorded an error (a hook that threw, a file that failed to import). */
function enclosingFailed(test: TestCase): boolean {
  for (let parent: TestSuite | TestModule = test.parent; ; parent = parent.parent) {
    if (parent.errors().length > 0 || parent.state() === "failed") return true;
    if (parent.type === "module") return false;
  }
}

/**
 * Ends the run with one plain line, `N passed, N failed, N skipped`, which CI systems that do not
 * read vitest's own summary recognise in any language. A test that was meant to run but did not,
 * because a `beforeAll` around it threw, is failed, not skipped (a missing nats-server must not
 * read as "0 failed"); a file that failed to import, or whose hooks threw after its tests passed,
 * counts as one failed test. Before it, one line names the slowest files.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      let failedHere = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed += 1;
        else if (state === "failed") failedHere += 1;
        else if ((test.options.mode === "run" || test.options.mode === "only") && enclosingFailed(test)) failedHere += 1;
        else skipped += 1;
      }
      if (failedHere === 0 && (module.errors().length > 0 || module.state() === "failed")) failedHere = 1;
      failed += failedHere;
    }
    // The files that took longest (their tests and hooks): where to look when the suite nears CI's 20 minutes.
    const slowest = [...testModules]
      .map((module) => ({ file: relative(process.cwd(), module.moduleId), seconds: module.diagnostic().duration / 1000 }))
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, SLOWEST);
    if (slowest.length > 0) process.stdout.write(`\nslowest files: ${slowest.map((entry) => `${entry.file} ${entry.seconds.toFixed(0)} s`).join(", ")}\n`);
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
