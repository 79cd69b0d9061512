import { Socket } from 'node:net'

/** Environment variable naming the lifeline fd a DR Studio parent handed to a Node child. */
export const LIFELINE_ENV = 'DRSTUDIO_LIFELINE_FD'
/** The fd the sandbox's spawner puts the lifeline on (after stdin, stdout and stderr). */
export const LIFELINE_FD = 3

/**
 * Child side of the lifeline: when a DR Studio parent started us with a pipe on the fd named by
 * DRSTUDIO_LIFELINE_FD, exits once that pipe reaches EOF (the parent died, however it died).
 * Does nothing when the variable is absent (an operator running `drstudio mgmt` by hand).
 * Returns true when a lifeline is being watched.
 */
export function watchLifeline(
  env: NodeJS.ProcessEnv = process.env,
  onParentGone: () => void = () => process.exit(0),
  openFd: (fd: number) => Pick<Socket, 'on' | 'unref' | 'resume'> = (fd) =>
    new Socket({ fd, readable: true, writable: false })
): boolean {
  const raw = env[LIFELINE_ENV]
  if (raw === undefined) return false
  const fd = Number(raw)
  // Our own children must not mistake this fd for theirs.
  delete env[LIFELINE_ENV]
  if (!Number.isInteger(fd) || fd < 3) return false
  let sock: Pick<Socket, 'on' | 'unref' | 'resume'>
  try {
    sock = openFd(fd)
  } catch {
    // The fd is not open (a hand-set variable): no parent to watch.
    return false
  }
  let gone = false
  const done = (): void => {
    if (gone) return
    gone = true
    onParentGone()
  }
  sock.on('end', done)
  sock.on('close', done)
  sock.on('error', done)
  // The parent never writes; anything read is discarded. Unref: the lifeline alone keeps no one alive.
  sock.on('data', () => {})
  sock.resume()
  sock.unref()
  return true
}
