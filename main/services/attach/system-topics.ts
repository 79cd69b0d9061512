/** Topics every 5.3.3 broker creates for itself (TopicValidator.SYSTEM_TOPIC_SET). */
const SYSTEM_TOPICS = new Set([
  'TBW102',
  'SCHEDULE_TOPIC_XXXX',
  'BenchmarkTest',
  'RMQ_SYS_TRANS_HALF_TOPIC',
  'RMQ_SYS_TRACE_TOPIC',
  'RMQ_SYS_TRANS_OP_HALF_TOPIC',
  'TRANS_CHECK_MAX_TIME_TOPIC',
  'SELF_TEST_TOPIC',
  'OFFSET_MOVED_EVENT',
  'CHECKPOINT_TOPIC'
])

/** Prefixes of per-group and internal topics (MixAll, TopicValidator.SYSTEM_TOPIC_PREFIX). */
const SYSTEM_PREFIXES = ['rmq_sys_', '%RETRY%', '%DLQ%', '%LMQ%', '%SYS%', 'RMQ_SYS_']

/**
 * Whether a name-server topic is RocketMQ's own rather than an application's: the fixed system
 * set, the internal prefixes, and the topics a broker registers under its cluster name, its
 * broker name and `<cluster>_REPLY_TOPIC` (TopicConfigManager).
 */
export function isSystemTopic(
  topic: string,
  clusters: ReadonlySet<string>,
  brokerNames: ReadonlySet<string>
): boolean {
  if (SYSTEM_TOPICS.has(topic)) return true
  if (SYSTEM_PREFIXES.some((p) => topic.startsWith(p))) return true
  if (clusters.has(topic) || brokerNames.has(topic)) return true
  if (topic.endsWith('_REPLY_TOPIC') && clusters.has(topic.slice(0, -'_REPLY_TOPIC'.length))) {
    return true
  }
  return false
}
