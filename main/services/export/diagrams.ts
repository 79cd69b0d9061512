import type { TopologyNode } from '../../../common/topology/model'
import type { Topology } from '../../../common/topology/schema'
import { nodesByRoom } from './placeholders'

interface Edge {
  from: string
  to: string
  label: string
  style: 'solid' | 'dashed' | 'thick'
}

function describe(node: TopologyNode): string {
  switch (node.kind) {
    case 'nameserver':
      return node.spec.controller ? 'name server + controller' : 'name server'
    case 'controller':
      return 'controller'
    case 'management':
      return 'management node'
    case 'broker':
      return `${node.spec.role} ${node.spec.cluster}/${node.spec.brokerName}`
    case 'proxy':
      return 'proxy'
    case 'producer':
      return `produces ${node.spec.topic}`
    case 'consumer':
      return `consumes ${node.spec.topic} (${node.spec.group})`
  }
}

/** Edges worth drawing; broker → name-server registrations are all-to-all, so they are stated, not drawn. */
function edges(topology: Topology): Edge[] {
  const nodes = nodesByRoom(topology)
  const out: Edge[] = []
  const mgmtOf = (room: string) => nodes.filter((n) => n.kind === 'management' && n.room === room)
  for (const n of nodes) {
    if (n.kind === 'broker' && n.spec.role === 'slave') {
      const master = nodes.find(
        (m) =>
          m.kind === 'broker' &&
          m.spec.role === 'master' &&
          m.spec.cluster === n.spec.cluster &&
          m.spec.brokerName === n.spec.brokerName
      )
      if (master) out.push({ from: n.id, to: master.id, label: 'replicates', style: 'thick' })
    }
    if (n.kind === 'broker' || n.kind === 'producer' || n.kind === 'consumer') {
      const m = mgmtOf(n.room)[0]
      if (m) out.push({ from: n.id, to: m.id, label: 'nsaddr', style: 'dashed' })
    }
    if (n.kind === 'management') {
      for (const ns of nodes.filter((x) => x.kind === 'nameserver')) {
        out.push({ from: n.id, to: ns.id, label: 'probes', style: 'dashed' })
      }
    }
  }
  return out
}

function mermaidIds(topology: Topology): Map<string, string> {
  const ids = new Map<string, string>()
  const used = new Set<string>()
  const add = (id: string, prefix: string) => {
    let m = `${prefix}_${id.replace(/[^A-Za-z0-9_]/g, '_')}`
    for (let i = 2; used.has(m); i++) m = `${prefix}_${id.replace(/[^A-Za-z0-9_]/g, '_')}_${i}`
    used.add(m)
    ids.set(`${prefix}:${id}`, m)
  }
  for (const r of topology.rooms) add(r.id, 'room')
  for (const n of nodesByRoom(topology)) add(n.id, 'n')
  return ids
}

function mermaidText(text: string): string {
  return text.replace(/"/g, '#quot;').replace(/</g, '#lt;').replace(/>/g, '#gt;')
}

const MERMAID_SHAPE: Record<TopologyNode['kind'], [string, string]> = {
  management: ['[[', ']]'],
  nameserver: ['[(', ')]'],
  broker: ['[', ']'],
  proxy: ['{{', '}}'],
  controller: ['[/', '/]'],
  producer: ['([', '])'],
  consumer: ['([', '])']
}

/** topology.mmd: a Mermaid flowchart with one subgraph per room. */
export function mermaid(topology: Topology): string {
  const ids = mermaidIds(topology)
  const nodes = nodesByRoom(topology)
  const lines = [
    `%% Topology "${topology.name}" exported by DR Studio.`,
    '%% Every broker registers with every name server of every room (not drawn).',
    'flowchart LR'
  ]
  for (const room of topology.rooms) {
    const label = room.name ? `${room.name} (${room.id})` : room.id
    lines.push(
      `  subgraph ${ids.get(`room:${room.id}`)}["${mermaidText(label)}"]`,
      '    direction TB'
    )
    for (const n of nodes.filter((x) => x.room === room.id)) {
      const [open, close] = MERMAID_SHAPE[n.kind]
      const text = `${mermaidText(n.id)}<br/>${mermaidText(describe(n))}`
      lines.push(`    ${ids.get(`n:${n.id}`)}${open}"${text}"${close}`)
    }
    lines.push('  end')
  }
  const arrow = { solid: '-->', dashed: '-.->', thick: '==>' } as const
  for (const e of edges(topology)) {
    const a = ids.get(`n:${e.from}`)
    const b = ids.get(`n:${e.to}`)
    lines.push(`  ${a} ${arrow[e.style]}|${e.label}| ${b}`)
  }
  return lines.join('\n') + '\n'
}

function htmlText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

function xmlAttr(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/\n/g, '&#xa;')
}

const DRAWIO_STYLE: Record<TopologyNode['kind'], string> = {
  management: 'rounded=1;whiteSpace=wrap;html=1;fillColor=#e1d5e7;strokeColor=#9673a6;',
  nameserver:
    'shape=cylinder3;whiteSpace=wrap;html=1;size=8;fillColor=#dae8fc;strokeColor=#6c8ebf;',
  broker: 'rounded=0;whiteSpace=wrap;html=1;fillColor=#fff2cc;strokeColor=#d6b656;',
  proxy: 'shape=hexagon;whiteSpace=wrap;html=1;fillColor=#f5f5f5;strokeColor=#666666;',
  controller: 'shape=parallelogram;whiteSpace=wrap;html=1;fillColor=#ffe6cc;strokeColor=#d79b00;',
  producer: 'ellipse;whiteSpace=wrap;html=1;fillColor=#d5e8d4;strokeColor=#82b366;',
  consumer: 'ellipse;whiteSpace=wrap;html=1;fillColor=#f8cecc;strokeColor=#b85450;'
}

const ROOM_W = 260
const ROOM_GAP = 60
const NODE_W = 220
const NODE_H = 50
const NODE_GAP = 20
const HEADER = 40

/** topology.drawio: draw.io XML with a container (swimlane) per room; opens in diagrams.net. */
export function drawio(topology: Topology): string {
  const nodes = nodesByRoom(topology)
  const cells: string[] = ['<mxCell id="0" />', '<mxCell id="1" parent="0" />']
  topology.rooms.forEach((room, r) => {
    const inRoom = nodes.filter((n) => n.room === room.id)
    const height = HEADER + Math.max(1, inRoom.length) * (NODE_H + NODE_GAP) + NODE_GAP
    const label = room.name ? `${room.name} (${room.id})` : room.id
    cells.push(
      `<mxCell id="room-${xmlAttr(room.id)}" value="${xmlAttr(label)}" style="swimlane;startSize=30;container=1;collapsible=0;html=1;" vertex="1" parent="1">`,
      `  <mxGeometry x="${40 + r * (ROOM_W + ROOM_GAP)}" y="40" width="${ROOM_W}" height="${height}" as="geometry" />`,
      '</mxCell>'
    )
    inRoom.forEach((n, i) => {
      cells.push(
        `<mxCell id="node-${xmlAttr(n.id)}" value="${xmlAttr(`${htmlText(n.id)}<br>${htmlText(describe(n))}`)}" style="${DRAWIO_STYLE[n.kind]}" vertex="1" parent="room-${xmlAttr(room.id)}">`,
        `  <mxGeometry x="${(ROOM_W - NODE_W) / 2}" y="${HEADER + i * (NODE_H + NODE_GAP)}" width="${NODE_W}" height="${NODE_H}" as="geometry" />`,
        '</mxCell>'
      )
    })
  })
  const edgeStyle = {
    solid: 'endArrow=classic;html=1;',
    dashed: 'endArrow=classic;dashed=1;html=1;',
    thick: 'endArrow=classic;strokeWidth=3;html=1;'
  } as const
  edges(topology).forEach((e, i) => {
    cells.push(
      `<mxCell id="edge-${i + 1}" value="${xmlAttr(e.label)}" style="${edgeStyle[e.style]}" edge="1" parent="1" source="node-${xmlAttr(e.from)}" target="node-${xmlAttr(e.to)}">`,
      '  <mxGeometry relative="1" as="geometry" />',
      '</mxCell>'
    )
  })
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<mxfile host="drstudio" type="device">`,
    `  <diagram id="topology" name="${xmlAttr(topology.name)}">`,
    '    <mxGraphModel dx="1200" dy="800" grid="1" gridSize="10" guides="1" tooltips="1" connect="1" arrows="1" fold="1" page="0" pageScale="1" math="0" shadow="0">',
    '      <root>',
    ...cells.map((c) => `        ${c}`),
    '      </root>',
    '    </mxGraphModel>',
    '  </diagram>',
    '</mxfile>',
    ''
  ].join('\n')
}
