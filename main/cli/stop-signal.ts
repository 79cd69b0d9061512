import type { Out, StopSignal } from '../services/kubernetes/deployed-topology'

/** SIGINT/SIGTERM: the first stops the command; later ones say the run is being removed. */
export function processStopSignal(out: Out): StopSignal {
  let stop!: () => void
  const stopped = new Promise<void>((resolve) => (stop = resolve))
  let count = 0
  const handler = () => {
    if (count++ === 0) return stop()
    out.write(
      'still removing the run; if this process is killed, `drstudio kubernetes sweep` removes it later\n'
    )
  }
  process.on('SIGINT', handler)
  process.on('SIGTERM', handler)
  return {
    stopped,
    dispose: () => {
      process.off('SIGINT', handler)
      process.off('SIGTERM', handler)
    }
  }
}
