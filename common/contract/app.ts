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
  'about'
])
export type MenuCommand = z.infer<typeof menuCommandSchema>

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

export const appEvents = {
  /** Application menu and accelerators, forwarded so the renderer runs the same actions as its buttons. */
  'menu:command': event(z.object({ command: menuCommandSchema })),
  'engine:notice': event(
    z.object({ level: z.enum(['info', 'warning', 'error']), message: z.string() })
  )
}
