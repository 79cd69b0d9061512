import { defineConfig } from 'vitest/config'

/** Unit tests sit beside the code; integration tests (real RocketMQ JVMs) live in test/integration. */
export default defineConfig({
  test: {
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
          environment: 'node'
        }
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          testTimeout: 180_000,
          hookTimeout: 180_000,
          fileParallelism: false
        }
      }
    ]
  }
})
