import { isPidAlive } from '../pid-alive'
import { networkFaultSchema } from '../../../common/scenario/schema'
import type { NetworkFaultInput } from '../../../common/scenario/schema'
import { RANGE_ENV, formatCidr, labRange, parseRange, sliceOf } from './addressing'
import { findAppPaths } from '../app-paths'
import { DelayRouter, defaultDelayRouterPath } from './delay-router'
import type { ExecPort } from './exec'
import { describeFailure, nodeExec } from './exec'
import type { ActiveFault, HealSelector } from './faults'
import { describeFault, matchesHeal, nodeRules, resolveFault } from './faults'
import { HostResources, clashesIn } from './host'
import type { EffectiveLink } from './links'
import { effectiveLinks } from './links'
import type { OwnerRecord, SweepPlan } from './owners'
import { OwnerStore, belongsTo, ownerAlive, planSweep, processStartTime } from './owners'
import type { ExecStep, NetworkPlan, PlanInput } from './plan'
import { DELAY_TABLE, IFACE, planNetwork, upSteps } from './plan'
import type { DelayMechanism, DelayedPair } from './rules'
import {
  coreRuleset,
  delayRuleArgs,
  delayedPairs,
  nodeRuleset,
  replaceTable,
  routerSetLine,
  shapingPlan,
  tcBatch
} from './rules'
import { probeNetem } from './support'

export interface NetworkLabOptions {
  exec?: ExecPort
  /** Owner records; machine-wide by default (see DEFAULT_STATE_DIR). */
  stateDir?: string
  /** The built TUN delay router; needed only for latency on kernels without netem. */
  delayRouter?: string
  /** Skip the netem probe (tests, or a caller that already ran detectNetworkSupport). */
  delay?: DelayMechanism
  pid?: number
  now?: () => number
  /** Whether a recorded owner still runs; the real check compares pid and start time. */
  isOwnerAlive?: (record: OwnerRecord) => boolean
  pidAlive?: (pid: number) => boolean
  signal?: (pid: number, signal: NodeJS.Signals) => void
}

/** What the lab has actually put in place, so each change only touches what differs. */
interface Applied {
  core: string
  nodes: Map<string, string>
  tc: Map<string, string>
  delays: Map<string, DelayedPair>
}

const emptyApplied = (): Applied => ({
  core: '',
  nodes: new Map(),
  tc: new Map(),
  delays: new Map()
})

/**
 * One lab instance: rooms as namespaces joined by a core router, faults as rules. Build it with a
 * plan from `planNetwork`; every resource is named `drs…` and recorded under an owner record, so
 * `down`, `downSync` (exit handlers) and the next start's `sweep` can remove it.
 */
export class NetworkLab {
  private readonly exec: ExecPort
  private readonly store: OwnerStore
  private readonly pid: number
  private readonly now: () => number
  private readonly isOwnerAlive: (record: OwnerRecord) => boolean
  private readonly pidAlive: (pid: number) => boolean
  private readonly signal: (pid: number, signal: NodeJS.Signals) => void
  private readonly host: HostResources
  private readonly claimed = new Set<number>()
  private running: NetworkPlan | null = null
  private mechanism: DelayMechanism = 'tun'
  private faults: ActiveFault[] = []
  private applied = emptyApplied()
  private router: DelayRouter | null = null
  private seq = 0
  private queue: Promise<unknown> = Promise.resolve()

  constructor(private readonly opts: NetworkLabOptions = {}) {
    this.exec = opts.exec ?? nodeExec
    this.store = new OwnerStore(opts.stateDir)
    this.pid = opts.pid ?? process.pid
    this.now = opts.now ?? Date.now
    this.isOwnerAlive = opts.isOwnerAlive ?? ownerAlive
    this.pidAlive = opts.pidAlive ?? isPidAlive
    this.signal =
      opts.signal ??
      ((pid, sig) => {
        try {
          process.kill(pid, sig)
        } catch {
          // already gone
        }
      })
    this.host = new HostResources(this.exec, this.signal, this.pidAlive)
  }

  /** The plan the lab runs, or null while down. */
  get current(): NetworkPlan | null {
    return this.running
  }

  /** How latency is applied on this kernel (known once up). */
  get delayMechanism(): DelayMechanism {
    return this.mechanism
  }

  /**
   * Picks and claims the lowest free instance of `range` (default: `DRSTUDIO_NET_RANGE`, then
   * 198.18.0.0/15), taking over instances whose owner died (their leftovers are removed first).
   */
  async claim(range: string = labRange()): Promise<number> {
    const parsed = parseRange(range)
    if (!parsed.ok) throw new Error(parsed.error)
    for (let i = 0; i < parsed.slices; i++) {
      if (await this.tryClaim(i, formatCidr(sliceOf(parsed.range, i)))) return i
    }
    throw new Error(
      `every lab instance of ${range} is held by a running DR Studio process; stop one, or set ${RANGE_ENV} to a larger private range`
    )
  }

  /** Claims a free instance and plans the lab in it, with the same range (see `planNetwork`). */
  async plan(
    input: Omit<PlanInput, 'instance' | 'range'>,
    range: string = labRange()
  ): Promise<NetworkPlan> {
    const instance = await this.claim(range)
    try {
      return planNetwork({ ...input, instance, range })
    } catch (err) {
      this.release(instance)
      throw err
    }
  }

  private async tryClaim(instance: number, slice: string): Promise<boolean> {
    if (this.claimed.has(instance)) return true
    const record: OwnerRecord = {
      version: 1,
      instance,
      pid: this.pid,
      pidStart: this.opts.pid === undefined ? processStartTime(this.pid) : null,
      slice,
      createdAt: new Date(this.now()).toISOString()
    }
    for (let attempt = 0; attempt < 3; attempt++) {
      if (this.claimRecord(record)) {
        this.claimed.add(instance)
        return true
      }
      const existing = this.store.read(instance)
      if (existing && this.isOwnerAlive(existing)) return false
      if (this.store.takeOver(instance)) await this.host.removeInstance(instance)
    }
    return false
  }

  private claimRecord(record: OwnerRecord): boolean {
    try {
      return this.store.claim(record)
    } catch (err) {
      throw new Error(
        `cannot write the lab's owner record in ${this.store.dir} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); ` +
          'run DR Studio as root, which network namespaces need anyway'
      )
    }
  }

  /** Builds the planned lab. Fails, leaving nothing behind, when the slice clashes with the machine. */
  async up(plan: NetworkPlan): Promise<void> {
    return this.exclusive(async () => {
      if (this.running)
        throw new Error(
          `the network lab is already up (instance ${this.running.instance}); call down() first`
        )
      if (!(await this.tryClaim(plan.instance, plan.slice))) {
        const owner = this.store.read(plan.instance)
        throw new Error(
          `lab instance ${plan.instance} (${plan.slice}) is in use by DR Studio process ${owner?.pid ?? '?'}; ` +
            'use NetworkLab.claim() to pick a free one'
        )
      }
      try {
        await this.host.removeInstance(plan.instance)
        await this.checkClashes(plan)
        for (const step of upSteps(plan)) await this.must(step)
        this.running = plan
        this.mechanism =
          this.opts.delay ?? ((await probeNetem(this.exec, plan.core.ns)) ? 'netem' : 'tun')
        await this.sync()
      } catch (err) {
        await this.router?.stop()
        this.router = null
        this.reset()
        await this.host.removeInstance(plan.instance)
        this.release(plan.instance)
        throw err
      }
    })
  }

  private async checkClashes(plan: NetworkPlan): Promise<void> {
    const clashes = clashesIn(
      plan.slice,
      await this.exec.run(['ip', '-j', '-4', 'addr', 'show']),
      await this.exec.run(['ip', '-j', '-4', 'route', 'show', 'table', 'all'])
    )
    if (clashes.length === 0) return
    const what = clashes.slice(0, 3).map((c) => c.what)
    throw new Error(
      `the lab's addresses ${plan.slice} (instance ${plan.instance} of ${plan.range}) clash with ` +
        `${what.join('; ')} on this machine; set ${RANGE_ENV} to a free private range ` +
        '(e.g. 10.213.0.0/16), or remove the clashing address or route'
    )
  }

  /** Processes the lab itself runs (the delay router, once latency is in use). */
  ownPids(): number[] {
    return this.router ? [this.router.pid] : []
  }

  /** argv prefix that runs a command inside a node's namespace (e.g. `[...prefix, 'java', ...]`). */
  spawnPrefix(nodeId: string): string[] {
    return ['ip', 'netns', 'exec', this.node(nodeId).ns]
  }

  /** The node's own address; processes inside its namespace send from it. */
  addressOf(nodeId: string): string {
    return this.node(nodeId).ip
  }

  /** Where nodes reach the engine (the host end of the host link); never faulted. */
  engineAddress(): string {
    return this.requirePlan().host.addr
  }

  private node(nodeId: string): NetworkPlan['nodes'][number] {
    const plan = this.requirePlan()
    const node = plan.nodes.find((n) => n.id === nodeId)
    if (!node) {
      throw new Error(
        `node "${nodeId}" is not in the network lab (nodes: ${plan.nodes.map((n) => n.id).join(', ')})`
      )
    }
    return node
  }

  private requirePlan(): NetworkPlan {
    if (!this.running) throw new Error('the network lab is not up; call up(plan) first')
    return this.running
  }

  /** Applies a lasting fault (everything but heal); the returned record is what `heal` removes. */
  async apply(input: NetworkFaultInput): Promise<ActiveFault> {
    const parsed = networkFaultSchema.safeParse(input)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!
      throw new Error(
        `network fault ${JSON.stringify(input)}: ${issue.path.join('.') || 'action'}: ${issue.message}`
      )
    }
    const fault = parsed.data
    if (fault.action === 'heal')
      throw new Error('heal is not a lasting fault; call heal(selector) instead')
    return this.exclusive(async () => {
      const plan = this.requirePlan()
      const resolved = resolveFault(plan, fault)
      if (!resolved.ok) throw new Error(resolved.error)
      const active: ActiveFault = {
        id: `f${++this.seq}`,
        fault,
        scope: resolved.scope,
        appliedAt: this.now()
      }
      this.faults.push(active)
      try {
        await this.sync()
      } catch (err) {
        this.faults = this.faults.filter((f) => f !== active)
        await this.sync().catch(() => {})
        throw new Error(`could not apply ${describeFault(fault)}: ${(err as Error).message}`)
      }
      return { ...active }
    })
  }

  /** Removes the faults the selector matches (all without one) and returns them. */
  async heal(selector?: HealSelector): Promise<ActiveFault[]> {
    return this.exclusive(async () => {
      this.requirePlan()
      const healed = this.faults.filter((f) => matchesHeal(f, selector))
      this.faults = this.faults.filter((f) => !healed.includes(f))
      await this.sync()
      return healed
    })
  }

  activeFaults(): ActiveFault[] {
    return this.faults.map((f) => ({ ...f }))
  }

  /** Every room pair as it behaves now (configured shape with faults on top), for the canvas. */
  links(): EffectiveLink[] {
    return effectiveLinks(this.requirePlan(), this.faults)
  }

  /** Brings rules, shaping and delays in line with the links and faults; touches only what changed. */
  private async sync(): Promise<void> {
    const plan = this.requirePlan()
    const links = effectiveLinks(plan, this.faults)
    const core = coreRuleset(plan, links)
    if (core !== this.applied.core) {
      await this.must({
        what: 'the room-link rules',
        argv: ['ip', 'netns', 'exec', plan.core.ns, 'nft', '-f', '-'],
        input: core
      })
      this.applied.core = core
    }
    const perNode = nodeRules(plan, this.faults)
    for (const node of plan.nodes) {
      const text = perNode.has(node.id)
        ? nodeRuleset(plan, perNode.get(node.id)!)
        : replaceTable([])
      if (text === (this.applied.nodes.get(node.id) ?? replaceTable([]))) continue
      await this.must({
        what: `the rules of node ${node.id}`,
        argv: ['ip', 'netns', 'exec', node.ns, 'nft', '-f', '-'],
        input: text
      })
      this.applied.nodes.set(node.id, text)
    }
    for (const [dev, flows] of shapingPlan(plan, links, this.mechanism)) {
      const batch = tcBatch(dev, flows).join('\n')
      if (batch === (this.applied.tc.get(dev) ?? '')) continue
      await this.exec.run(['tc', '-n', plan.core.ns, 'qdisc', 'del', 'dev', dev, 'root'])
      this.applied.tc.set(dev, '')
      if (batch) {
        await this.must({
          what: `shaping on ${dev}`,
          argv: ['tc', '-n', plan.core.ns, '-batch', '-'],
          input: batch + '\n'
        })
        this.applied.tc.set(dev, batch)
      }
    }
    if (this.mechanism === 'tun') await this.syncDelays(plan, delayedPairs(plan, links))
  }

  /** Router first, then the rule that feeds it (so no packet waits on an unset pair); the reverse to remove. */
  private async syncDelays(plan: NetworkPlan, wanted: DelayedPair[]): Promise<void> {
    const ns = plan.core.ns
    const next = new Map(wanted.map((p) => [p.key, p]))
    if (this.router && !this.router.alive) {
      // A dead router took its TUN (and the route into it) along; start over from no pairs.
      this.router = null
      for (const old of this.applied.delays.values()) {
        await this.exec.run(['ip', '-n', ns, 'rule', 'del', ...delayRuleArgs(old)])
      }
      this.applied.delays.clear()
    }
    if (next.size > 0 && !this.router) {
      const binary = this.opts.delayRouter ?? defaultDelayRouterPath(findAppPaths().root)
      this.router = await DelayRouter.start(this.exec, binary, ns, IFACE.tun)
      await this.must({
        what: 'the delay route',
        argv: [
          'ip',
          '-n',
          ns,
          'route',
          'replace',
          'default',
          'dev',
          IFACE.tun,
          'table',
          String(DELAY_TABLE)
        ]
      })
    }
    for (const [key, old] of this.applied.delays) {
      if (next.has(key)) continue
      await this.must({
        what: `the delay rule of ${key}`,
        argv: ['ip', '-n', ns, 'rule', 'del', ...delayRuleArgs(old)]
      })
      await this.router?.command(`clear ${old.srcCidr} ${old.dstCidr}`)
      this.applied.delays.delete(key)
    }
    for (const [key, p] of next) {
      const old = this.applied.delays.get(key)
      if (old && routerSetLine(old) === routerSetLine(p)) continue
      await this.router!.command(routerSetLine(p))
      if (!old)
        await this.must({
          what: `the delay rule of ${key}`,
          argv: ['ip', '-n', ns, 'rule', 'add', ...delayRuleArgs(p)]
        })
      this.applied.delays.set(key, p)
    }
  }

  /** Removes everything of this lab: the router, processes left in its namespaces, the namespaces, the host link. */
  async down(): Promise<void> {
    return this.exclusive(async () => {
      const plan = this.running
      if (!plan) return
      await this.router?.stop()
      this.router = null
      await this.host.removeInstance(plan.instance)
      this.release(plan.instance)
      this.reset()
    })
  }

  /** `down` for process-exit handlers: synchronous, SIGKILL, no waiting. */
  downSync(): void {
    const plan = this.running
    if (!plan) return
    this.router?.killNow()
    this.router = null
    this.host.removeInstanceSync(plan.instance)
    this.release(plan.instance)
    this.reset()
  }

  /** Removes labs whose owner died (and stale probe namespaces); never a live process's lab. */
  async sweep(): Promise<SweepPlan> {
    return this.exclusive(async () => {
      const namespaces = await this.host.namespaces()
      const links = await this.host.links()
      const records = this.store.instances().map((instance) => {
        const rec = this.store.read(instance)
        return { instance, alive: rec !== null && this.isOwnerAlive(rec) }
      })
      const own = new Set(this.claimed)
      const plan = planSweep({
        namespaces,
        hostLinks: links,
        records,
        pidAlive: this.pidAlive,
        own
      })
      for (const i of plan.instances) {
        // Look again right before deleting: another process may have claimed it meanwhile.
        const rec = this.store.read(i)
        if (rec && this.isOwnerAlive(rec)) continue
        if (this.store.instances().includes(i) && !this.store.takeOver(i)) continue
        await this.host.removeInstance(i)
      }
      const probes = plan.namespaces.filter((ns) => !plan.instances.some((i) => belongsTo(i, ns)))
      if (probes.length) await this.host.deleteNamespaces(probes)
      return plan
    })
  }

  private release(instance: number): void {
    if (this.claimed.delete(instance)) this.store.remove(instance)
  }

  private reset(): void {
    this.running = null
    this.faults = []
    this.applied = emptyApplied()
  }

  private async must(step: ExecStep): Promise<void> {
    const r = await this.exec.run(step.argv, step.input)
    if (r.code !== 0)
      throw new Error(`could not set up ${step.what}: ${describeFailure(step.argv, r)}`)
  }

  /** One change at a time: syncs diff against what the previous one applied. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn)
    this.queue = run.catch(() => {})
    return run
  }
}
