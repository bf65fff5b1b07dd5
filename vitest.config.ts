import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration suites start real processes; keep the 2-core machine from thrashing.
    fileParallelism: true,
    maxWorkers: 2,
    reporters: ["default", "./tests/helpers/summary-reporter.ts"],
  },
});
