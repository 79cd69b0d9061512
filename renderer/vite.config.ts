import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

/**
 * Standalone renderer build and dev server (`npx vite build renderer`, `npx vite renderer`).
 * electron-vite ignores this file (it builds from electron.vite.config.ts with configFile: false).
 */
export default defineConfig({
  base: './',
  plugins: [react()],
  build: { outDir: '../out/renderer', emptyOutDir: true }
})
