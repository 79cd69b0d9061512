/**
 * Client ids follow Java's `ip@instanceName@unitName`, with the room as the unit, so every peer
 * (and a Java AllocateMachineRoomNearby resolver) can read a consumer's room from the broker's list.
 */
export function buildClientId(input: { ip?: string; instance: string; room: string }): string {
  return `${input.ip ?? '127.0.0.1'}@${input.instance.replace(/@/g, '_')}@${input.room}`
}

/** The room encoded in a client id, or null for ids without one (e.g. plain Java clients). */
export function roomOfClientId(cid: string): string | null {
  const parts = cid.split('@')
  if (parts.length < 3) return null
  const room = parts[parts.length - 1]!
  return /^[A-Za-z][A-Za-z0-9_-]{0,62}$/.test(room) ? room : null
}
