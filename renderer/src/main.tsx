import '@xyflow/react/dist/style.css'
import './app/app.css'
import { createRoot } from 'react-dom/client'
import { z } from 'zod'
import { App } from './app/app'
import { initBridge } from './lib/bridge'
import { subscribeEngineEvents } from './lib/engine-events'
import { useFileStore } from './stores/file-store'
import { useNetworkStore } from './stores/network-store'
import { useRunStore } from './stores/run-store'

// The CSP has no 'unsafe-eval'; without this zod probes `new Function` and the browser reports it.
z.config({ jitless: true })

async function start(): Promise<void> {
  const params = new URLSearchParams(window.location.search)
  // Dev and benchmark route: a generated topology and synthetic events, no engine needed.
  const bench = params.has('bench') ? await import('./bench/bench') : null
  initBridge(bench?.createBenchBridge(params))
  subscribeEngineEvents()
  createRoot(document.getElementById('root')!).render(<App />)
  await Promise.all([
    useFileStore.getState().openDefault(),
    useRunStore.getState().refresh(),
    useNetworkStore.getState().refresh(),
    useFileStore.getState().refreshRecent()
  ])
  bench?.startBench(params)
}

void start()
