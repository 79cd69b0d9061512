import { create } from 'zustand'

/** Below this zoom nodes drop icons, subtitles and badges' text (cheaper to paint, unreadable anyway). */
export const FAR_ZOOM = 0.55
/** Animated traffic costs a repaint per frame per edge; beyond this, rate shows as width only. */
export const MAX_ANIMATED_EDGES = 80

/**
 * Whether live edges animate their traffic (near zoom, few edges). The canvas sets it when that
 * changes, so edges read one flag instead of each watching the viewport on every pan frame.
 */
export const useFlowMotion = create<{ animated: boolean }>()(() => ({ animated: true }))

/** Whether the canvas is zoomed out past FAR_ZOOM; live figures are not even rendered then. */
export const useCanvasLod = create<{ far: boolean }>()(() => ({ far: false }))
