import { create } from 'zustand'
import type { ClusterDiscoverOutput, EventPayload } from '../../../common/contract'
import { invoke } from '../lib/bridge'
import { useFileStore } from './file-store'
import { toast } from './ui-store'

export type RoomsChoice = 'auto' | 'zone' | 'map' | 'regex'

/** The dialog's fields, as `drstudio discover` takes them. */
export interface ConnectForm {
  namesrv: string
  addressServer: string
  rooms: RoomsChoice
  roomMap: string
  brokerPattern: string
  namesrvPattern: string
  topic: string
  clients: boolean
  createTopic: boolean
}

export interface ConnectState {
  open: boolean
  form: ConnectForm
  busy: boolean
  /** Progress lines of the discovery in flight (or the last one). */
  progress: string[]
  error: string | null
  /** The last answer that could not be opened (problems), or whose topic check failed. */
  result: ClusterDiscoverOutput | null
  setOpen(open: boolean): void
  setField<K extends keyof ConnectForm>(key: K, value: ConnectForm[K]): void
  applyProgress(p: EventPayload<'cluster:discover-progress'>): void
  discover(): Promise<void>
}

const FORM_KEY = 'drstudio.connectForm'

const EMPTY_FORM: ConnectForm = {
  namesrv: '',
  addressServer: '',
  rooms: 'auto',
  roomMap: '',
  brokerPattern: '',
  namesrvPattern: '',
  topic: '',
  clients: false,
  createTopic: false
}

/** The last form the user connected with, minus the create-topic box (always off on open). */
function rememberedForm(): ConnectForm {
  try {
    const raw = window.localStorage.getItem(FORM_KEY)
    const saved = raw ? (JSON.parse(raw) as Partial<ConnectForm>) : {}
    return { ...EMPTY_FORM, ...saved, createTopic: false }
  } catch {
    return { ...EMPTY_FORM }
  }
}

function remember(form: ConnectForm): void {
  try {
    const { createTopic: _c, ...rest } = form
    window.localStorage.setItem(FORM_KEY, JSON.stringify(rest))
  } catch {
    // Remembering the form is a convenience only.
  }
}

/** The form as the `cluster:discover` request. */
export function requestOf(form: ConnectForm) {
  return {
    namesrv: form.namesrv,
    ...(form.addressServer.trim() ? { addressServer: form.addressServer.trim() } : {}),
    rooms: form.rooms,
    ...(form.roomMap.trim() ? { roomMap: form.roomMap } : {}),
    ...(form.rooms === 'regex' && form.brokerPattern.trim()
      ? { brokerPattern: form.brokerPattern.trim() }
      : {}),
    ...(form.namesrvPattern.trim() ? { namesrvPattern: form.namesrvPattern.trim() } : {}),
    ...(form.topic.trim() ? { topic: form.topic.trim() } : {}),
    clients: form.clients && form.topic.trim() !== '',
    createTopic: form.createTopic && form.topic.trim() !== ''
  }
}

/** File › Connect to cluster…: the dialog's form, the discovery call and its outcome. */
export const useConnectStore = create<ConnectState>()((set, get) => ({
  open: false,
  form: { ...EMPTY_FORM },
  busy: false,
  progress: [],
  error: null,
  result: null,

  setOpen(open) {
    if (open) set({ open, form: rememberedForm(), error: null, result: null, progress: [] })
    else if (!get().busy) set({ open: false })
  },

  setField(key, value) {
    set((s) => ({ form: { ...s.form, [key]: value }, error: null }))
  },

  applyProgress(p) {
    if (!get().busy) return
    const count = p.total !== undefined ? ` (${p.done ?? 0}/${p.total})` : ''
    set((s) => ({ progress: [...s.progress, `${p.message}${count}`].slice(-12) }))
  },

  async discover() {
    const { form, busy } = get()
    if (busy) return
    if (!form.namesrv.trim() && !form.addressServer.trim()) {
      set({ error: 'Enter the name servers (host:port;host:port) or an address server' })
      return
    }
    set({ busy: true, error: null, result: null, progress: [] })
    try {
      const r = await invoke('cluster:discover', requestOf(form))
      remember(form)
      if (!r.ok || !r.opened) {
        set({ result: r })
        return
      }
      const opened = await useFileStore.getState().openDiscovered(r.opened)
      if (!opened) {
        set({ result: r })
        return
      }
      set({ open: false, result: null })
      const rooms = r.rooms.map((x) => `${x.id} (${x.brokers} broker${x.brokers === 1 ? '' : 's'})`)
      toast(
        'success',
        `Connected: ${rooms.join(', ')}. Every node is attached; DR Studio does not start or stop them.`
      )
      if (r.topic && !r.topic.ok) toast('warning', r.topic.lines.join(' '))
    } catch (err) {
      set({ error: (err as Error).message })
    } finally {
      set({ busy: false })
    }
  }
}))
