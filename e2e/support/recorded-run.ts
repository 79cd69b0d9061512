import { seedRecordedRun } from '../../main/services/report-html/test-seed'

/**
 * Puts a finished run (a real transactional run on RocketMQ, from test/golden/report) into the
 * app's data folder, as the app records one; returns its id. `edit` changes its report first.
 */
export function recordFinishedRun(
  dataDir: string,
  edit?: Parameters<typeof seedRecordedRun>[1]
): number {
  return seedRecordedRun(dataDir, edit)
}
