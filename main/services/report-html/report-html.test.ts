import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { CounterSample } from '../../../common/scenario/metrics'
import { reportSchema } from '../../../common/scenario/schema'
import { topologySchema } from '../../../common/topology/schema'
import { pausedBrokerSweep } from '../../../common/scenario/test-sweep'
import { reportHtml } from './report-html'

const ROOT = resolve(import.meta.dirname, '../../..')

/** A real run: the transactional scenario on RocketMQ 5.3.3 (see the fixture's `source`). */
function fixture() {
  const raw = JSON.parse(
    readFileSync(join(ROOT, 'test/golden/report/transactional-run.json'), 'utf8')
  ) as { report: unknown; topology: unknown; counters: CounterSample[] }
  return {
    report: reportSchema.parse(raw.report),
    topology: topologySchema.parse(raw.topology),
    counters: raw.counters
  }
}

describe('reportHtml', () => {
  it('is one self-contained page: no scripts, nothing fetched, a strict CSP', () => {
    const html = reportHtml(fixture())
    expect(html).not.toMatch(/<script|<link|<iframe|src="http|href="http|url\((?!#)/i)
    expect(html).toContain(
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`
    )
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">')
  })

  it('carries the verdict, gates, faults, failovers, plots and ledger of the run', () => {
    const input = fixture()
    const html = reportHtml(input)
    const r = input.report
    expect(html).toContain(`<h1>${r.scenario}</h1>`)
    expect(html).toContain('<span class="verdict pass">PASSED</span>')
    for (const g of r.gates) expect(html).toContain(g.name)
    expect(html).toContain('<td>kill</td>')
    // The topology marks room 1, whose brokers were killed, and the failovers out of it.
    expect(html).toMatch(/class="room hit"[^>]*\/><text[^>]*>Room 1 \(fault\)/)
    expect(html).toMatch(/\d+ failovers room1 → room2/)
    expect(html.match(/<figure>/g)?.length).toBe(2) // acknowledged and consumed; nothing failed
    expect(html).toContain('No send failed.')
    expect(html).toContain(`<td class="num">${r.totals.acked}</td>`)
  })

  it('says FAILED or ABORTED, and escapes what the run recorded', () => {
    const input = fixture()
    const failed = reportHtml({
      ...input,
      report: {
        ...input.report,
        passed: false,
        notes: ['drain <timed out> & "gave up"'],
        gates: [{ name: 'lost <messages>', passed: false, actual: 3, limit: 0 }]
      }
    })
    expect(failed).toContain('<span class="verdict fail">FAILED</span>')
    expect(failed).toContain('<li>drain &lt;timed out&gt; &amp; &quot;gave up&quot;</li>')
    expect(failed).toContain('lost &lt;messages&gt;')
    const aborted = reportHtml({
      ...input,
      report: { ...input.report, aborted: 'failed sends over 50 %' }
    })
    expect(aborted).toContain('ABORTED')
    expect(aborted).toContain('Stopped by the abort block:</strong> failed sends over 50 %')
  })
  it('shows the sweep a run belongs to as one table, the best starred, and nothing when not', () => {
    const input = fixture()
    expect(reportHtml(input)).not.toContain('>Sweep</h2>')
    const html = reportHtml({ ...input, report: { ...input.report, sweep: pausedBrokerSweep(9) } })
    expect(html).toContain('>Sweep</h2>')
    expect(html).toContain(
      '<tr><td>requestTimeout=1500ms</td><td class="num">1501.7 ms</td><td class="num">0 *</td><td class="num">75</td><td class="num">20.3 % *</td><td class="num">1503.7 ms</td></tr>'
    )
    expect(html).toContain('<li>best RTO: requestTimeout=400ms</li>')
    expect(html).toContain('<li>trade-off: requestTimeout=400ms is best on every figure</li>')
  })

  it('shows the headroom of each fault window when the report has it, and nothing when not', () => {
    const input = fixture()
    expect(reportHtml(input)).not.toContain('Headroom')
    const html = reportHtml({
      ...input,
      report: {
        ...input.report,
        headroom: [
          {
            fault: 'kill all brokers of room1',
            atMs: 6000,
            untilMs: 10_000,
            offeredPerS: 40,
            carriedPerS: 30,
            share: 0.75,
            rooms: [
              {
                room: 'room2',
                offeredPerS: 20,
                carriedPerS: 30,
                peakCpuPct: null,
                peakSendQueue: null
              }
            ]
          }
        ]
      }
    })
    expect(html).toContain('>Headroom</h2>')
    expect(html).toContain(
      '<li>kill all brokers of room1 (6.0–10.0 s): carried 30.0 of 40.0 msg/s offered (75.0 %); room2 offered 20.0, carried 30.0</li>'
    )
  })
})
