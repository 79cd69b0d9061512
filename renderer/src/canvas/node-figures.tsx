import { memo } from 'react'
import { figuresText, sparkPath } from '../model/sparkline'
import { useMetricsStore } from '../stores/metrics-store'

const SPARK_W = 44
const SPARK_H = 14

/** A client's live figures in place of its subtitle: rate sparkline, rate, p99 and failures. */
export const ClientFiguresLine = memo(function ClientFiguresLine({
  nodeId,
  fallback
}: {
  nodeId: string
  fallback: string
}) {
  const f = useMetricsStore((s) => s.clients[nodeId])
  if (!f) return <div className="cnode-sub">{fallback}</div>
  const text = figuresText(f.rate, f.p99Ms, f.failures)
  const failing = f.failHistory.some((v) => v > 0)
  return (
    <div
      className={`cnode-sub cnode-figures${f.failures ? ' is-failing' : ''}`}
      role="img"
      aria-label={`${nodeId} live: ${text}`}
      title={`${text} (last ${f.history.length} samples)`}
    >
      <svg className="spark" width={SPARK_W} height={SPARK_H} aria-hidden="true">
        <path className="spark-rate" d={sparkPath(f.history, SPARK_W, SPARK_H)} />
        {failing && <path className="spark-fail" d={sparkPath(f.failHistory, SPARK_W, SPARK_H)} />}
      </svg>
      <span className="cnode-figures-text">{text}</span>
    </div>
  )
})

/** A broker's stored messages per second, after its subtitle. */
export const BrokerTps = memo(function BrokerTps({ nodeId }: { nodeId: string }) {
  const tps = useMetricsStore((s) => s.brokerTps[nodeId])
  if (tps === undefined) return null
  const v = tps >= 10 || tps === 0 ? Math.round(tps) : tps.toFixed(1)
  return (
    <span className="cnode-tps" role="img" aria-label={`${nodeId} live: ${v} TPS`}>
      {' '}
      · {v} TPS
    </span>
  )
})
