/** Below this zoom nodes drop icons, subtitles and badges' text (cheaper to paint, unreadable anyway). */
export const FAR_ZOOM = 0.55
/** Animated traffic costs a repaint per frame per edge; beyond this, rate shows as width only. */
export const MAX_ANIMATED_EDGES = 80
