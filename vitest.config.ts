import { defineConfig } from "vitest/config";

/** Unit tests sit beside the code (`src/**`); everything else (`test/`, `tests/`) starts real processes. */
const unit = ["**/src/**/*.test.ts"];

export default defineConfig({
  test: {
    exclude: ["**/node_modules/**", "**/dist/**"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration suites start real processes; keep the 2-core machine from thrashing.
    fileParallelism: true,
    maxWorkers: 2,
    reporters: ["default", "./tests/helpers/summary-reporter.ts"],
    // `npm test` runs both projects; `npm run test:unit` only the first.
    projects: [
      { extends: true, test: { name: "unit", include: unit } },
      { extends: true, test: { name: "integration", include: ["**/*.test.ts"], exclude: [...unit, "**/node_modules/**", "**/dist/**"] } },
    ],
  },
});
