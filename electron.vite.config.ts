import { resolve } from 'node:path'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'electron-vite'

/** Top-level main/, preload/ and renderer/ folders instead of electron-vite's default src/ layout. */
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: { input: { index: resolve('main/app/index.ts') } }
    }
  },
  preload: {
    build: {
      outDir: 'out/preload',
      // A sandboxed preload cannot require(), so it is bundled standalone.
      externalizeDeps: false,
      rollupOptions: {
        input: { index: resolve('preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' }
      }
    }
  },
  renderer: {
    root: 'renderer',
    plugins: [react()],
    build: {
      outDir: 'out/renderer',
      rollupOptions: { input: { index: resolve('renderer/index.html') } }
    }
  }
})
