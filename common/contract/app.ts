import { z } from 'zod'
import { event, request } from './define'

export const shellKindSchema = z.enum(['electron', 'browser'])

export const appInfoSchema = z.object({
  version: z.string(),
  shell: shellKindSchema,
  dataDir: z.string(),
  platform: z.string()
})

export const menuCommandSchema = z.enum([
  'new',
  'open',
  'connect',
  'save',
  'save-as',
  'export',
  'zoom-to-fit',
  'auto-layout',
  'about',
  // Edit menu: the main process also runs the native edit on a focused text field.
  'undo',
  'redo',
  'cut',
  'copy',
  'paste',
  'select-all'
])
export type MenuCommand = z.infer<typeof menuCommandSchema>

/** Edit-menu commands: the renderer applies them to the canvas only when no text field has focus. */
export const EDIT_MENU_COMMANDS = ['undo', 'redo', 'cut', 'copy', 'paste', 'select-all'] as const
export type EditMenuCommand = (typeof EDIT_MENU_COMMANDS)[number]

const requestIdSchema = z.number().int().nonnegative()

/** What the renderer answers about the open document; `dirty` = unsaved changes. */
export const documentAnswerSchema = z.object({
  requestId: requestIdSchema,
  dirty: z.boolean(),
  fileName: z.string()
})
export type DocumentAnswer = z.infer<typeof documentAnswerSchema>

const fileFilterSchema = z.object({ name: z.string(), extensions: z.array(z.string()) })

export const appRequests = {
  'app:info': request(z.object({}), appInfoSchema),
  /** Native open dialog; the browser shell answers `unsupported` and the renderer uses a file picker. */
  'dialog:open-file': request(
    z.object({ title: z.string().optional(), filters: z.array(fileFilterSchema).optional() }),
    z.object({ path: z.string().nullable(), unsupported: z.boolean().optional() })
  ),
  'dialog:save-file': request(
    z.object({
      title: z.string().optional(),
      defaultPath: z.string().optional(),
      filters: z.array(fileFilterSchema).optional()
    }),
    z.object({ path: z.string().nullable(), unsupported: z.boolean().optional() })
  ),
  'dialog:choose-directory': request(
    z.object({ title: z.string().optional() }),
    z.object({ path: z.string().nullable(), unsupported: z.boolean().optional() })
  ),
  'settings:get': request(z.object({}), z.record(z.string(), z.unknown())),
  'settings:set': request(
    z.object({ key: z.string().min(1).max(200), value: z.unknown() }),
    z.object({ ok: z.literal(true) })
  )
}

/**
 * Renderer → Electron main process requests that the shell itself answers, not the engine (so
 * they are not in the engine's handler table, and the browser shell never receives the query).
 */
export const shellRequests = {
  /** The answer to a `document:query`. */
  'document:answer': request(documentAnswerSchema, z.object({ ok: z.literal(true) }))
}
export type ShellRequestChannel = keyof typeof shellRequests
export const SHELL_REQUEST_CHANNELS = Object.keys(shellRequests) as ShellRequestChannel[]

export function isShellRequestChannel(value: unknown): value is ShellRequestChannel {
  return typeof value === 'string' && Object.hasOwn(shellRequests, value)
}

export const appEvents = {
  /** Application menu and accelerators, forwarded so the renderer runs the same actions as its buttons. */
  'menu:command': event(z.object({ command: menuCommandSchema })),
  /**
   * The Electron main process asks, before a close, quit or View ▸ Reload, whether the document
   * has unsaved changes; with `save` the renderer saves first. Answered with `document:answer`.
   */
  'document:query': event(z.object({ requestId: requestIdSchema, save: z.boolean() })),
  'engine:notice': event(
    z.object({ level: z.enum(['info', 'warning', 'error']), message: z.string() })
  )
}
