import { ReactFlowProvider } from '@xyflow/react'
import { useEffect } from 'react'
import { Canvas } from '../canvas/canvas'
import { ConnectDialog } from '../components/connect-dialog'
import { ConfirmDialog, LogDialog, ShortcutsDialog } from '../components/dialogs'
import { ExportDialog } from '../components/export-dialog'
import { SweepDialog } from '../components/sweep-dialog'
import { FilePicker } from '../components/file-picker'
import { NetworkDialog } from '../components/network-dialog'
import { NetworkMenu } from '../components/network-menu'
import { NodeMenu } from '../components/node-menu'
import { ReplayBar } from '../components/replay-bar'
import { RunsView } from '../components/runs-view'
import { StatusBar } from '../components/status-bar'
import { Toasts } from '../components/toasts'
import { Toolbar } from '../components/toolbar'
import { bridge } from '../lib/bridge'
import { handleGlobalKeyDown } from '../lib/commands'
import { Dock } from '../panels/dock'
import { AddNodeMenu, Palette } from '../panels/palette'
import { ProblemsPanel } from '../panels/problems-panel'
import { PropertiesPanel } from '../panels/properties-panel'
import { selectDirty, useEditorStore } from '../stores/editor-store'
import { useUiStore } from '../stores/ui-store'

function ConnectionBanner() {
  const connection = useUiStore((s) => s.connection)
  if (connection === 'open' || connection === 'connecting') return null
  return (
    <div className="banner" role="alert">
      {connection === 'unauthorized'
        ? 'The engine refused this page: open the address printed by `drstudio serve` (it carries the access token).'
        : 'Connection to the engine lost, reconnecting… Edits are kept; run controls wait for the engine.'}
    </div>
  )
}

function useWindowChrome() {
  const fileName = useEditorStore((s) => s.fileName)
  const dirty = useEditorStore(selectDirty)
  useEffect(() => {
    document.title = `${dirty ? '• ' : ''}${fileName} · DR Studio`
  }, [fileName, dirty])
  useEffect(() => {
    window.addEventListener('keydown', handleGlobalKeyDown)
    return () => window.removeEventListener('keydown', handleGlobalKeyDown)
  }, [])
  useEffect(() => {
    // Electron treats a cancelled beforeunload as "do not close", silently; its main process asks instead.
    if (bridge.transport !== 'browser') return
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      if (selectDirty(useEditorStore.getState())) e.preventDefault()
    }
    window.addEventListener('beforeunload', onBeforeUnload)
    return () => window.removeEventListener('beforeunload', onBeforeUnload)
  }, [])
}

/** The application shell: toolbar, palette, canvas with problems and dock, properties, status bar. */
export function App() {
  useWindowChrome()
  return (
    <div className="app">
      <Toolbar />
      <ConnectionBanner />
      <main className="workspace">
        <Palette />
        <div className="center">
          <ReactFlowProvider>
            <Canvas />
          </ReactFlowProvider>
          <ReplayBar />
          <ProblemsPanel />
          <Dock />
        </div>
        <PropertiesPanel />
      </main>
      <StatusBar />
      <Toasts />
      <NodeMenu />
      <NetworkMenu />
      <NetworkDialog />
      <AddNodeMenu />
      <RunsView />
      <ExportDialog />
      <SweepDialog />
      <ConnectDialog />
      <ConfirmDialog />
      <LogDialog />
      <ShortcutsDialog />
      <FilePicker />
    </div>
  )
}
