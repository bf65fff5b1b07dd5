import { defineConfig } from "vitest/config";

/** Unit tests sit beside the code (`src/**`); everything else (`test/`, `tests/`) starts real processes. */
const unit = ["**/src/**/*.test.ts"];

export default defineConfig({
  test: {
    exclude: ["**/node_modules/**", "**/dist/**"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration suites start real processes and mostly wait on them: on the 2-core machine two
    // files at a time left a core idle (CPU 16 min over 15 min wall); three keep both busy
    // without thrashing.
    fileParallelism: true,
    maxWorkers: 3,
    reporters: ["default", "./tests/helpers/summary-reporter.ts"],
    // `npm test` runs both projects; `npm run test:unit` only the first.
    projects: [
      { extends: true, test: { name: "unit", include: unit } },
      { extends: true, test: { name: "integration", include: ["**/*.test.ts"], exclude: [...unit, "**/node_modules/**", "**/dist/**"] } },
    ],
  },
});
