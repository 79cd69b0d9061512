// Preloaded into tools that phone home (Electronegativity fetches translations): refuses every name
// lookup that is not loopback, so they fail at once instead of leaving 127.0.0.0/8.
const dns = require('node:dns')

const original = dns.lookup
dns.lookup = function lookup(hostname, options, callback) {
  const cb = typeof options === 'function' ? options : callback
  if (hostname === 'localhost' || /^127\./.test(hostname)) return original.apply(this, arguments)
  const err = new Error(`loopback-guard: refused lookup of ${hostname}`)
  err.code = 'ENOTFOUND'
  process.nextTick(() => cb(err))
  return {}
}
