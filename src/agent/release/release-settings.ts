/**
 * The settings of one release station, as the station and each of its sessions read them.
 */
import type { ReleaseMode } from '../../config/release-station-schema.js';

/** Settings of one station (already validated config, times in ms). */
export interface ReleaseStationSettings {
  name: string;
  printer: string;
  mode: ReleaseMode;
  /** Conversion chain applied to each raw swipe. */
  transforms: readonly string[];
  idleTimeoutMs: number;
  /** How often the idle deadline is checked against the clock; default 250 ms. */
  idleCheckMs?: number;
  /** X-Lang-ID used for fallback error texts. */
  lang?: string;
  /**
   * PrintJobs running at once when releasing all or chosen jobs (default 1: one after another);
   * while-present mode always releases one at a time.
   */
  parallelReleases?: number;
}
