/**
 * Environment overrides for tools other than git whose workspace config can name a program that
 * even a read-only subcommand runs (environment beats the config files for each):
 * - cargo: `.cargo/config.toml` `build.rustc-wrapper` / `rustc-workspace-wrapper` / `rustc` /
 *   `rustdoc` (`cargo metadata` or `cargo tree` already runs `rustc -vV` through them). An empty
 *   wrapper turns the wrapper off.
 * - yarn (classic): `.yarnrc` `yarn-path` makes every yarn command run a workspace file instead.
 * What a workspace runs by design (package scripts, make recipes, build.rs) is not here: the
 * approval policy and the preview's `scripts` handle those.
 */
export function toolConfigOverrides(): Record<string, string> {
  return {
    CARGO_BUILD_RUSTC_WRAPPER: "",
    CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER: "",
    CARGO_BUILD_RUSTC: "rustc",
    CARGO_BUILD_RUSTDOC: "rustdoc",
    YARN_IGNORE_PATH: "1",
  };
}
