import { aideError, experiment, runExperimentOf, type EditFormat, type StartRequest, type ToolDescriptor } from "@aide/contracts";
import { settlePendingAtRunEnd } from "./approvals/settled-approvals.js";
import { checkWorkspace } from "./config/workspace-check.js";
import { mergeCatalog } from "./orchestrator-tools/orchestrator-tool-descriptors.js";
import { withMcpTools } from "./mcp/mcp-catalog.js";
import type { OrchestratorSeams, RunContext, RunOutcome } from "./run/run-context.js";
import { createRunPolicies } from "./run/run-policies.js";
import { runLoop } from "./run/run-loop.js";
import { emptyCounters, isActive, newSessionRecord, type SessionRecord } from "./session/session-record.js";
import { SessionRuntime } from "./session/session-runtime.js";
import { modelText } from "./context/model-text.js";

/**
 * Owns the sessions loaded in this process and the lifecycle of their runs. Commands (one file
 * each under commands/) call into it; the turn itself lives in run/ and turn/.
 */
export class Orchestrator {
  readonly sessions = new Map<string, SessionRuntime>();
  /** Set at shutdown: runs cut off by the drain stay active in the store and resume at the next start. */
  private stopping = false;
  private timers: NodeJS.Timeout[] = [];
  private resuming?: Promise<number>;
  constructor(readonly seams: OrchestratorSeams) {}

  /**
   * Lease upkeep for several instances sharing the queue group: renew the leases of the runs held
   * here, and take over active sessions whose owner stopped renewing.
   */
  startBackground(): void {
    const leaseMs = this.seams.config.leaseMs;
    const renew = setInterval(
      () => {
        for (const runtime of this.sessions.values()) {
          if (runtime.running && runtime.lease) runtime.persist().catch((error: unknown) => this.seams.logger.warn({ err: error }, "lease renewal failed"));
        }
      },
      Math.max(100, Math.floor(leaseMs / 3)),
    );
    const sweep = setInterval(
      () => {
        this.resumeAll().catch((error: unknown) => this.seams.logger.warn({ err: error }, "takeover sweep failed"));
      },
      Math.max(200, Math.floor(leaseMs / 2)),
    );
    renew.unref();
    sweep.unref();
    this.timers.push(renew, sweep);
  }

  /** The instance that runs this session when it is not this one and its lease is live. */
  ownerElsewhere(runtime: SessionRuntime): string | undefined {
    const record = runtime.record;
    if (runtime.running || !isActive(record.state) || !record.owner || record.owner === this.seams.instanceId) return undefined;
    if (!record.lease_until || Date.parse(record.lease_until) <= this.seams.now().getTime()) return undefined;
    return record.owner;
  }

  /** The session loaded here, or read from the store (it may have been started by another instance). */
  async load(id: string): Promise<SessionRuntime> {
    const loaded = this.sessions.get(id);
    // A run of this process owns its record; anything else is re-read (another instance may own it).
    if (loaded && (loaded.running || loaded.waiter.size() > 0)) return loaded;
    const record = await this.seams.store.get(id);
    if (!record) throw aideError("SESSION_NOT_FOUND", { session: id });
    if (loaded) {
      loaded.record = record;
      return loaded;
    }
    const runtime = this.runtimeFor(record);
    this.sessions.set(id, runtime);
    return runtime;
  }

  private runtimeFor(record: SessionRecord): SessionRuntime {
    return new SessionRuntime(record, this.seams.store, this.seams.events, this.seams.now, {
      pauseAfterMs: this.seams.config.storePauseAfterMs,
      logger: this.seams.logger,
    });
  }

  async start(request: StartRequest): Promise<SessionRecord> {
    const { workspaceRoots: roots, userHome: home, allowHomeWorkspace } = this.seams.config;
    const workspace = checkWorkspace(request.workspace, { roots, home, allowHomeWorkspace });
    if (!request.allow_concurrent) await this.refuseBusyWorkspace(workspace, request.session);
    // No shared filesystem is assumed: a workspace no tools/checkpoints instance serves is refused now.
    await this.seams.tools.checkWorkspace?.(workspace);
    await this.seams.checkpoints.checkWorkspace?.(workspace);
    const catalog = withMcpTools(mergeCatalog(await this.seams.tools.list()), await this.seams.mcp?.list(workspace));
    let runtime: SessionRuntime;
    if (request.session) {
      runtime = await this.load(request.session);
      // A run that has published its end may still be closing its processes (`aide run --continue`
      // right after a run): the new run waits for that instead of being refused.
      if (runtime.running && !isActive(runtime.record.state)) await runtime.running;
      if (isActive(runtime.record.state) || runtime.running) throw aideError("ALREADY_RUNNING", { session: request.session });
      if (runtime.record.workspace !== workspace) throw aideError("VALIDATION", { detail: "a session keeps its workspace" });
      const claimed = await this.seams.store.claim(request.session, this.seams.instanceId, this.seams.now(), this.seams.config.leaseMs);
      if (!claimed || isActive(claimed.state)) throw aideError("ALREADY_RUNNING", { session: request.session });
      runtime.record = claimed;
    } else {
      const now = this.seams.now().toISOString();
      const id = this.seams.generateId();
      const record = newSessionRecord({ id, user: request.user, workspace, mode: request.mode, task: request.task, max_iterations: this.seams.config.maxIterations }, now);
      runtime = this.runtimeFor(record);
      this.sessions.set(id, runtime);
    }
    this.prepareRun(runtime, request);
    runtime.record.model_edit_format = request.experiment?.edit_format === undefined ? await this.modelEditFormat(runtime.record.model) : undefined;
    runtime.record.transcript.push({ role: "user", content: modelText(request.task) });
    await runtime.emit("run.created", {
      task: request.task,
      mode: runtime.record.mode,
      workspace,
      model: runtime.record.model || "(model service default)",
      unsandboxed_services: this.seams.config.unsandboxed,
      experiment: runExperimentOf(runtime.record.experiment, {
        ...experiment,
        ...(runtime.record.model_edit_format !== undefined ? { edit_format: runtime.record.model_edit_format } : {}),
        strategies: { code_map: this.seams.config.codeMapInPrefix === true },
      }),
    });
    await runtime.persist();
    this.launch(runtime, catalog);
    return runtime.record;
  }

  /**
   * Two runs writing one workspace interleave their edits and checkpoints: the second start is
   * refused naming the first's session. Covers the sessions this instance holds (with several
   * instances, each guards its own runs). A copy of a session another instance runs (loaded
   * here to forward a command to it, or taken over from here) is as old as the moment it was
   * read: the store says whether that run is still active, so a run that ended there does not
   * keep the workspace busy here.
   */
  private async refuseBusyWorkspace(workspace: string, except: string | undefined): Promise<void> {
    for (const runtime of [...this.sessions.values()]) {
      const record = runtime.record;
      if (record.id === except || record.workspace !== workspace) continue;
      // The state, not the run's promise: it turns terminal before the terminal event is published,
      // so a client that saw run.completed may start the next run at once (housekeeping may still run).
      if (!isActive(record.state)) continue;
      const elsewhere = runtime.leaseLost || (runtime.running === undefined && record.owner !== undefined && record.owner !== this.seams.instanceId);
      if (elsewhere) {
        // Unreadable: the copy's word stands (refused, as before).
        const stored = await this.seams.store.get(record.id).catch(() => record);
        if (stored === undefined || !isActive(stored.state)) continue;
      }
      throw aideError("WORKSPACE_BUSY", { workspace, session: record.id }, { session: record.id });
    }
  }

  /** The edit format the run's model's registry entry chose (from eval results); undefined when none or the service is silent. */
  private async modelEditFormat(model: string): Promise<EditFormat | undefined> {
    const info = await this.seams.model.modelInfo?.(model || undefined);
    return info?.editFormat;
  }

  private prepareRun(runtime: SessionRuntime, request: StartRequest): void {
    const record = runtime.record;
    const now = this.seams.now().toISOString();
    record.run = this.seams.generateId();
    record.state = "running";
    record.task = request.task;
    if (request.session) record.mode = request.mode;
    record.model = request.model ?? this.seams.config.defaultModel ?? record.model ?? "";
    record.max_iterations = request.max_iterations ?? this.seams.config.maxIterations;
    record.auto_approve = request.auto_approve ?? { edits: false, commands: [] };
    record.approval_timeout_ms = request.approval_timeout_seconds === undefined ? undefined : request.approval_timeout_seconds * 1000;
    // Each run has its own settings: a continued session without them is back to the defaults.
    record.experiment = request.experiment;
    record.trust_instructions = request.trust_instructions === true ? true : undefined;
    record.instructions = undefined;
    record.iterations = 0;
    record.run_started_at = now;
    record.run_ended_at = undefined;
    record.result = undefined;
    record.failure = undefined;
    record.evidence = undefined;
    record.evidence_missing = undefined;
    record.batch = [];
    settlePendingAtRunEnd(record, this.seams.now());
    record.tool_log = [];
    record.counters = emptyCounters();
    record.checkpointed = false;
    record.checkpoints = [];
    record.files_changed = [];
    record.automation_writes = [];
    record.system = undefined;
    runtime.abortController = new AbortController();
    runtime.lease = { owner: this.seams.instanceId, ms: this.seams.config.leaseMs };
  }

  /** Starts (or resumes) the loop of the session's current run in the background. */
  launch(runtime: SessionRuntime, catalog: ToolDescriptor[]): void {
    const record = runtime.record;
    const context: RunContext = {
      seams: this.seams,
      session: runtime,
      run: record.run ?? "none",
      depth: 0,
      task: record.task,
      state: record,
      catalog,
      maxIterations: record.max_iterations,
      canDelegate: true,
      readOnlyAgent: false,
      policies: createRunPolicies(record.task, record.tool_log, record.counters.completion_attempts),
      startedAtMs: Date.parse(record.run_started_at ?? this.seams.now().toISOString()),
      logger: this.seams.logger.child({ session: record.id, run: record.run }),
      persist: () => runtime.persist(),
      runChild: runLoop,
    };
    const done = runLoop(context)
      .then((outcome) => this.finish(runtime, outcome))
      .catch((error: unknown) => context.logger.error({ err: error }, "finishing the run failed"))
      .finally(() => {
        if (runtime.running === done) {
          runtime.running = undefined;
          runtime.lease = undefined;
        }
        // Another instance runs the session now: this copy (its state frozen where the lease was
        // lost, still "active") is dropped, so a later command or start reads the store afresh.
        if (runtime.leaseLost && this.sessions.get(record.id) === runtime) this.sessions.delete(record.id);
      });
    runtime.running = done;
  }

  /** Publishes the run's terminal event and leaves nothing pending. */
  private async finish(runtime: SessionRuntime, outcome: RunOutcome): Promise<void> {
    if (this.stopping || runtime.leaseLost) return;
    const record = runtime.record;
    runtime.waiter.cancelAll({ decision: "abort", feedback: "the run ended", source: "run_end" });
    settlePendingAtRunEnd(record, this.seams.now());
    record.batch = [];
    record.inbox = [];
    record.run_ended_at = this.seams.now().toISOString();
    switch (outcome.kind) {
      case "done":
      case "unverified":
        record.state = outcome.kind;
        record.result = outcome.result;
        record.evidence = outcome.kind === "done" ? outcome.evidence : [];
        record.evidence_missing = outcome.kind === "unverified" ? outcome.missing : undefined;
        await runtime.emit("run.completed", {
          state: outcome.kind,
          result: outcome.result,
          iterations: record.iterations,
          files_changed: record.files_changed,
          commands_run: record.counters.commands_run,
          checkpoints: record.checkpoints,
          automation_writes: record.automation_writes,
          evidence: outcome.kind === "done" ? outcome.evidence : [],
        });
        break;
      case "failed":
        record.state = "error";
        record.result = `INCOMPLETE: ${outcome.message}`;
        record.failure = { code: outcome.code, message: outcome.message };
        await runtime.emit("run.failed", { error: { code: outcome.code, message: outcome.message }, iterations: record.iterations });
        break;
      case "aborted":
        record.state = "aborted";
        record.result = `Aborted: ${outcome.reason}`;
        await runtime.emit("run.cancelled", { reason: outcome.reason });
        break;
      default: {
        const never: never = outcome;
        throw new Error(`unknown outcome ${JSON.stringify(never)}`);
      }
    }
    // The terminal state and its event are durable together (the event in the outbox) before the
    // event is awaited; once the stream has it, the outbox is written empty and the session is no
    // longer live (a sweep never reads it again).
    await runtime.persist();
    await this.seams.events.flush(record.id);
    if (this.stopping) return;
    await runtime.persist();
    // Background processes the run started do not outlive it unseen (the tools service reaps them).
    await this.seams.tools.close?.(record.id).catch((error: unknown) => this.seams.logger.warn({ err: error, session: record.id }, "closing the session's processes failed"));
    // A run that checkpointed keeps the shadow repository bounded; not awaited: the run is over.
    if (record.checkpoints.length > 0 && this.seams.checkpoints.prune) {
      void this.seams.checkpoints.prune(record.workspace).catch((error: unknown) => this.seams.logger.warn({ err: error, session: record.id }, "pruning checkpoints failed"));
    }
  }

  /**
   * After a restart: every session whose run was active resumes. The sequence continues after
   * the newest event in the stream; pending approvals are offered again under the same id; a
   * mutation that was in flight is reported to the model as interrupted.
   */
  resumeAll(): Promise<number> {
    // One sweep at a time: two overlapping sweeps of this instance would both claim (it owns the lease).
    this.resuming ??= this.resumeSessions().finally(() => {
      this.resuming = undefined;
    });
    return this.resuming;
  }

  private async resumeSessions(): Promise<number> {
    // Only live sessions (an active run, or events still in an outbox): a finished one is never read.
    const records = await this.seams.store.listLive();
    let resumed = 0;
    let catalog: ToolDescriptor[] | undefined;
    for (const listed of records) {
      const local = this.sessions.get(listed.id);
      // Run here, or its outbox is being republished here already.
      if (local?.running || local?.lease || this.seams.events.pendingCount(listed.id) > 0) continue;
      const record = await this.seams.store.claim(listed.id, this.seams.instanceId, this.seams.now(), this.seams.config.leaseMs);
      if (!record) continue;
      const streamSeq = (await this.seams.lastEventSeq?.(record.id).catch(() => undefined)) ?? undefined;
      // Without the stream's answer the outbox cannot be matched against it: leave it for a later sweep.
      if (streamSeq === undefined && record.outbox.length > 0) continue;
      record.last_seq = Math.max(record.last_seq, streamSeq ?? 0);
      const runtime = this.runtimeFor(record);
      this.sessions.set(record.id, runtime);
      this.seams.events.replay(record.id, record, streamSeq ?? 0);
      if (!isActive(record.state)) {
        // The run had ended; only its last events were not stored yet. Not awaited: a stream that
        // is still away must not hold up the other sessions of this sweep.
        void this.seams.events
          .flush(record.id)
          .then(() => (this.stopping ? undefined : runtime.persist()))
          .catch((error: unknown) => this.seams.logger.warn({ err: error, session: record.id }, "writing the emptied outbox failed"));
        continue;
      }
      // Child agents are not durable: their approvals go; the parent's spawn_agent call reads as interrupted.
      record.approvals = record.approvals.filter((approval) => approval.depth === 0);
      runtime.lease = { owner: this.seams.instanceId, ms: this.seams.config.leaseMs };
      this.seams.logger.info({ session: record.id, previous_owner: listed.owner }, "resuming a session");
      await runtime.emit("run.state", { state: record.state });
      catalog ??= mergeCatalog(await this.toolCatalogWithRetry());
      this.launch(runtime, withMcpTools(catalog, await this.seams.mcp?.list(record.workspace)));
      resumed += 1;
    }
    return resumed;
  }

  /** At a restart the tools service may still be starting: a few tries before resuming without its tools. */
  private async toolCatalogWithRetry(attempts = 10): Promise<ToolDescriptor[]> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.seams.tools.list();
      } catch (error) {
        if (attempt >= attempts) {
          this.seams.logger.error({ err: error }, "the tools service did not answer; resuming with the orchestrator's own tools only");
          return [];
        }
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }

  /** Stops every run's waiting (used at shutdown; durable state stays for the next start). */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const timer of this.timers) clearInterval(timer);
    // Bounded: what the stream does not take in time stays in the records' outboxes for the next start.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.seams.events.flush(), new Promise((resolve) => (timer = setTimeout(resolve, 2_000)))]);
    clearTimeout(timer);
    this.seams.events.stop();
  }
}
