/**
 * The watchers of single jobs (JobService.watch): callers that want the job's record after every
 * applied event or cancellation, such as a release that follows the job it printed. Holds only
 * the watcher sets; a watcher stops by calling the function watch() returned.
 */
import type { JobRecord } from './job-repo.js';

/** Called with the job after every applied event or cancellation (see JobService.watch). */
export type JobWatcher = (job: JobRecord) => void;

/** Reads a job by id (the job repository's own read). */
export type JobLookup = (jobId: string) => JobRecord | undefined;

/** The watchers of each job, told with the job's stored record. */
export class JobWatchers {
  private readonly watchers = new Map<string, Set<JobWatcher>>();

  constructor(
    /** Reads the job's record at the moment its watchers are told. */
    private readonly findJob: JobLookup,
  ) {}

  /** Adds `watcher` for the job; returns the function that removes it (the caller calls it when done). */
  watch(jobId: string, watcher: JobWatcher): () => void {
    const set = this.watchers.get(jobId) ?? new Set<JobWatcher>();
    this.watchers.set(jobId, set);
    set.add(watcher);
    return () => {
      set.delete(watcher);
      if (set.size === 0 && this.watchers.get(jobId) === set) this.watchers.delete(jobId);
    };
  }

  /** Tells the job's watchers its stored record (none when the job is unwatched or unknown). */
  notify(jobId: string): void {
    const set = this.watchers.get(jobId);
    if (!set) return;
    const job = this.findJob(jobId);
    if (job) for (const watcher of [...set]) watcher(job);
  }
}
