import { describe, expect, it } from 'vitest'
import { linuxProcFs } from './procfs'

describe.skipIf(process.platform !== 'linux')('linuxProcFs.cpuSeconds', () => {
  it('reads the CPU a process used from /proc, and nothing for a process that is gone', () => {
    const cpu = () => linuxProcFs.cpuSeconds!(process.pid)!
    const before = cpu()
    expect(before).toBeGreaterThan(0)
    // Spin until the count moves (ticks are 10 ms), however busy the machine is.
    const deadline = Date.now() + 5000
    while (cpu() < before + 0.02 && Date.now() < deadline);
    expect(cpu()).toBeGreaterThanOrEqual(before + 0.02)
    expect(linuxProcFs.cpuSeconds!(2 ** 22 + 1)).toBeUndefined()
  })
})
