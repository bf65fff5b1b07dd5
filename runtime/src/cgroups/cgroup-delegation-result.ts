/** What the supervisor hands one service of the cgroup hierarchy (v1 or v2), or why nothing. */
export interface CgroupDelegation {
  /** Which hierarchy the service's command limits come from; "none": they are off. */
  hierarchy: "v1" | "v2" | "none";
  /** Why there is none (for the loud warning of `aide up` and `aide doctor`). */
  reason?: string;
  /** Folders the service may write (bound read-write into its sandbox). */
  directories: string[];
  /** `cgroup.procs` files the launcher joins before it execs bubblewrap. */
  procsFiles: string[];
  release(): void;
}
