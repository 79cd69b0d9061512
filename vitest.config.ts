import { defineConfig } from 'vitest/config'
import { BaseSequencer } from 'vitest/node'
import type { TestSpecification } from 'vitest/node'
import { FailureDigest } from './test/integration/setup/failure-digest'

/**
 * Integration files in a fixed order: the Java worker's first (it ran 93 s instead of 45 s right
 * after the scenario file's JVMs), then vitest's own order (slowest first, by its cache or size).
 */
class IntegrationOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const first = (f: TestSpecification) => (f.moduleId.endsWith('java-worker.test.ts') ? 0 : 1)
    return [...sorted].sort((a, b) => first(a) - first(b))
  }
}

/** Unit tests sit beside the code; integration tests (real RocketMQ JVMs) live in test/integration. */
export default defineConfig({
  test: {
    // The sequencer is the run's, not a project's (a project's is ignored).
    sequence: { sequencer: IntegrationOrder },
    // After the summary, a few lines per failed test: what a CI log's tail keeps.
    reporters: ['default', new FailureDigest()],
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            'common/**/*.test.ts',
            'main/**/*.test.ts',
            'renderer/**/*.test.ts',
            'preload/**/*.test.ts',
            'bench/**/*.test.ts'
          ],
          environment: 'node',
          // Files share a worker's module cache: 56 s instead of 125 s here (184 files on 2 cores,
          // each one re-importing the same modules). Unit tests keep no module-level state.
          isolate: false
        }
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          testTimeout: 180_000,
          hookTimeout: 180_000,
          // A failing test's last output joins its error in the summary CI's excerpt keeps.
          setupFiles: ['test/integration/setup/last-output.ts'],
          fileParallelism: false
        }
      }
    ]
  }
})
