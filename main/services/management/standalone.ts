import { watchLifeline } from '../lifeline'
import { runManagementNode } from './run'

// Child-process entry for the sandbox: `node --import tsx main/services/management/standalone.ts <config>`.
// A separate process, so SIGKILL/SIGSTOP on a management node are real.
const configPath = process.argv[2]
if (!configPath) {
  console.error('usage: node --import tsx main/services/management/standalone.ts <config.json>')
  process.exit(2)
}
// Started by a sandbox: die with it even when it is SIGKILLed (setpriv covers JVMs, this covers us too).
watchLifeline()
runManagementNode(configPath).catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e))
  process.exit(1)
})
