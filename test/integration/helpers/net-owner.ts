// A DR Studio process that builds a small lab and then gets SIGKILLed by the test, so the test can
// prove that the next sweep() removes what a crashed owner left. Prints one JSON line when ready.
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { NetworkLab } from '../../../main/services/network/index'

const delayRouter = process.argv[2]!
const lab = new NetworkLab({ delayRouter })
const plan = await lab.plan({
  rooms: ['room1', 'room2'],
  nodes: [
    { id: 'x', room: 'room1' },
    { id: 'y', room: 'room2' }
  ]
})
await lab.up(plan)
await lab.apply({ action: 'delay', target: 'room1', peer: 'room2', latencyMs: 5 })
await lab.apply({ action: 'partition', target: 'x', peer: 'y', mode: 'reject' })
const [cmd, ...args] = lab.spawnPrefix('x')
const agent = spawn(cmd!, [...args, process.execPath, join(import.meta.dirname, 'net-agent.mjs')], {
  stdio: ['ignore', 'pipe', 'inherit'],
  detached: true
})
agent.stdout.once('data', () => {
  console.log(
    JSON.stringify({
      instance: plan.instance,
      agentPid: agent.pid,
      ownPids: lab.ownPids(),
      slice: plan.slice
    })
  )
})
setInterval(() => {}, 1 << 30)
