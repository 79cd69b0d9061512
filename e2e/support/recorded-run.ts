import { seedRecordedRun } from '../../main/services/report-html/test-seed'

/**
 * Puts a finished run (a real transactional run on RocketMQ, from test/golden/report) into the
 * app's data folder, as the app records one; returns its id.
 */
export function recordFinishedRun(dataDir: string): number {
  return seedRecordedRun(dataDir)
}
