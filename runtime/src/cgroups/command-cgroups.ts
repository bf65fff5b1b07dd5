/** What the sandbox asks of per-command cgroups, whichever hierarchy (v1 or v2) gives them. */
export interface CommandCgroup {
  /** cgroup.procs files the command's first process must join before it starts anything. */
  procsFiles: string[];
  /** Kills whatever is left in the groups and removes them. Must not throw. */
  release(): Promise<void>;
}

export interface CgroupLimits {
  /** Both the pids and the memory controller can be limited per command. */
  available: boolean;
  describe: string;
  /** Why the unified (v2) hierarchy gave no limits, when it was looked at. */
  v2Problem?: string;
  /**
   * A new group per command with both limits written, or null when the host has no usable
   * controllers (the caller decides whether that refuses the command). Throws
   * SANDBOX_LIMITS_UNAVAILABLE when the controllers are there but this group cannot be made.
   */
  create(name: string): Promise<CommandCgroup | null>;
  /** Resolves when every released group has been removed (call before exiting). */
  drain(): Promise<void>;
}
