import type { Topology } from '../../../common/topology/schema'

/** A panel's query: PromQL over the `drstudio_*` metrics, and its legend. */
interface Target {
  expr: string
  legendFormat: string
}

interface Panel {
  type: string
  title: string
  description?: string
  gridPos: { x: number; y: number; w: number; h: number }
  targets?: Target[]
  unit?: string
}

const RATE = '$__rate_interval'
const DS = { type: 'prometheus', uid: '${datasource}' }

/** Every PromQL expression of a dashboard (the tests check them with promtool). */
export function dashboardExpressions(dashboardJson: string): string[] {
  const d = JSON.parse(dashboardJson) as {
    panels: { targets?: Target[] }[]
    annotations: { list: { expr?: string }[] }
  }
  return [
    ...d.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr)),
    ...d.annotations.list.flatMap((a) => (a.expr ? [a.expr] : []))
  ]
}

/**
 * A Grafana dashboard for the metrics a run serves (`--metrics`, README "Metrics"): the run and
 * its faults on top, then one row per room of the topology (its clients' send and delivery
 * rates, failures, send p99, cross-room share, last recovery, its nodes' states). Faults are
 * annotations. Import it and pick the Prometheus data source that scrapes DR Studio.
 */
export function grafanaDashboard(topology: Topology): string {
  const panels: Record<string, unknown>[] = []
  let y = 0
  const row = (title: string) => {
    panels.push({ type: 'row', title, collapsed: false, gridPos: { x: 0, y, w: 24, h: 1 } })
    y += 1
  }
  const add = (cells: Omit<Panel, 'gridPos'>[], h = 8) => {
    const w = Math.floor(24 / cells.length)
    cells.forEach((c, i) => panels.push(panel({ ...c, gridPos: { x: i * w, y, w, h } })))
    y += h
  }
  row('Run')
  add(
    [
      {
        type: 'table',
        title: 'Run in progress',
        targets: [{ expr: 'drstudio_run_info == 1', legendFormat: '{{scenario}} #{{run_id}}' }]
      },
      {
        type: 'table',
        title: 'Faults in force',
        description: 'A node fault until its nodes are up again, a network fault until healed',
        targets: [{ expr: 'drstudio_fault_active == 1', legendFormat: '{{action}} {{target}}' }]
      },
      {
        type: 'timeseries',
        title: 'Master epoch (controller mode)',
        targets: [{ expr: 'drstudio_master_epoch', legendFormat: '{{group}}' }]
      },
      {
        type: 'timeseries',
        title: 'Duplicates per second',
        targets: [
          {
            expr: `sum by (lane) (rate(drstudio_duplicates_total[${RATE}]))`,
            legendFormat: '{{lane}}'
          }
        ]
      },
      {
        type: 'timeseries',
        title: 'Replication between rooms',
        unit: 'Bps',
        description:
          "Bytes per second replicas copy from a master in another room (the brokers' HA status)",
        targets: [
          {
            expr: `sum by (from_room, to_room) (rate(drstudio_replication_bytes_total[${RATE}]))`,
            legendFormat: '{{from_room}} → {{to_room}}'
          }
        ]
      }
    ],
    6
  )
  for (const room of topology.rooms) {
    const r = `room="${room.id}"`
    row(`Room ${room.name ?? room.id}`)
    add([
      {
        type: 'timeseries',
        title: 'Acknowledged sends per second',
        unit: 'reqps',
        targets: [
          {
            expr: `sum by (client, lane) (rate(drstudio_sends_total{${r},status="acked"}[${RATE}]))`,
            legendFormat: '{{client}}'
          }
        ]
      },
      {
        type: 'timeseries',
        title: 'Failed sends and attempts per second',
        targets: [
          {
            expr: `sum by (client) (rate(drstudio_sends_total{${r},status="failed"}[${RATE}]))`,
            legendFormat: '{{client}} failed sends'
          },
          {
            expr: `sum by (client, reason) (rate(drstudio_send_attempt_failures_total{${r}}[${RATE}]))`,
            legendFormat: '{{client}} {{reason}}'
          }
        ]
      },
      {
        type: 'timeseries',
        title: 'Send latency p99',
        unit: 's',
        targets: [
          {
            expr: `histogram_quantile(0.99, sum by (le, client) (rate(drstudio_send_latency_seconds_bucket{${r}}[${RATE}])))`,
            legendFormat: '{{client}}'
          }
        ]
      },
      {
        type: 'timeseries',
        title: 'Deliveries per second',
        unit: 'reqps',
        targets: [
          {
            expr: `sum by (client, broker_room) (rate(drstudio_deliveries_total{${r}}[${RATE}]))`,
            legendFormat: '{{client}} from {{broker_room}}'
          }
        ]
      }
    ])
    add([
      {
        type: 'timeseries',
        title: 'Cross-room share of sends',
        unit: 'percentunit',
        description: 'Acknowledged sends stored by a broker in another room',
        targets: [
          {
            expr: `sum(rate(drstudio_sends_total{${r},status="acked",cross_room="true"}[${RATE}])) / sum(rate(drstudio_sends_total{${r},status="acked"}[${RATE}]))`,
            legendFormat: 'sends'
          },
          {
            expr: `sum(rate(drstudio_deliveries_total{${r},cross_room="true"}[${RATE}])) / sum(rate(drstudio_deliveries_total{${r}}[${RATE}]))`,
            legendFormat: 'deliveries'
          }
        ]
      },
      {
        type: 'stat',
        title: 'Last recovery (RTO)',
        unit: 's',
        description: "From a producer's first failure to its next acknowledged send",
        targets: [{ expr: `drstudio_last_rto_seconds{${r}}`, legendFormat: '{{client}}' }]
      },
      {
        type: 'table',
        title: 'Nodes',
        description: 'Each server node and its state now',
        targets: [{ expr: `drstudio_node_state{${r}} == 1`, legendFormat: '{{node}} {{state}}' }]
      },
      {
        type: 'table',
        title: 'Broker masters',
        targets: [{ expr: `drstudio_broker_master{${r}} == 1`, legendFormat: '{{group}} {{node}}' }]
      },
      {
        type: 'timeseries',
        title: 'Broker CPU and send queue',
        description:
          "Headroom: can this room's brokers take another room's load? CPU of the brokers DR Studio runs (100 = one core), and requests waiting in each broker's send queue",
        targets: [
          { expr: `drstudio_broker_cpu_percent{${r}}`, legendFormat: 'CPU % {{node}}' },
          { expr: `drstudio_broker_send_queue{${r}}`, legendFormat: 'send queue {{node}}' }
        ]
      }
    ])
  }
  const dashboard = {
    title: `DR Studio: ${topology.name}`,
    // Grafana uids are at most 40 characters: a short name plus a hash of the whole one.
    uid: `drstudio-${topology.name.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 22)}-${fnv1a(topology.name)}`,
    tags: ['drstudio', 'rocketmq'],
    timezone: 'browser',
    schemaVersion: 39,
    version: 1,
    refresh: '5s',
    time: { from: 'now-15m', to: 'now' },
    templating: {
      list: [
        {
          type: 'datasource',
          name: 'datasource',
          label: 'Prometheus',
          query: 'prometheus',
          current: {}
        }
      ]
    },
    annotations: {
      list: [
        {
          name: 'Faults',
          datasource: DS,
          enable: true,
          iconColor: 'red',
          // A region per fault while it is in force (Grafana joins consecutive samples).
          expr: 'drstudio_fault_active == 1',
          titleFormat: '{{action}} {{target}}',
          textFormat: 'in force',
          step: '5s'
        }
      ]
    },
    panels: panels.map((p, i) => ({ id: i + 1, ...p }))
  }
  return JSON.stringify(dashboard, null, 2) + '\n'
}

function panel(p: Panel): Record<string, unknown> {
  return {
    type: p.type,
    title: p.title,
    ...(p.description ? { description: p.description } : {}),
    datasource: DS,
    gridPos: p.gridPos,
    fieldConfig: { defaults: p.unit ? { unit: p.unit } : {}, overrides: [] },
    // Tables show the labels of the series now; plots their history.
    ...(p.type === 'table' ? { transformations: [{ id: 'labelsToFields', options: {} }] } : {}),
    targets: (p.targets ?? []).map((t, i) => ({
      refId: String.fromCharCode(65 + i),
      datasource: DS,
      expr: t.expr,
      legendFormat: t.legendFormat,
      ...(p.type === 'table' ? { instant: true, range: false, format: 'table' } : {})
    }))
  }
}

/** 32-bit FNV-1a of a string, as 8 hex digits (stable uids). */
function fnv1a(text: string): string {
  let h = 0x811c9dc5
  for (const ch of Buffer.from(text, 'utf8')) {
    h ^= ch
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h.toString(16).padStart(8, '0')
}
