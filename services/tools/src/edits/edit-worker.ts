import { parentPort } from "node:worker_threads";
import { runEditJob, type EditJob } from "./edit-job.js";

/** The worker-thread entry: one job in, its outcome out (the thread is ended after each job). */
parentPort?.once("message", (job: EditJob) => {
  parentPort?.postMessage(runEditJob(job));
});
