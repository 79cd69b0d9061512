import { Command, InvalidArgumentError, Option } from 'commander'
import { findAppPaths } from '../services/app-paths'
import { runExportCommand } from './export-command'
import { runChaosExportCommand } from './chaos-export-command'
import { runLintCommand } from './lint-command'
import { watchLifeline } from '../services/lifeline'
import { runManagementNode } from '../services/management'
import { runScenarioCommand } from './scenario-command'
import { recordedResults } from './recorded-results'
import { runReportCommand } from './report-command'
import { runSweepCommand } from './sweep-command'
import { runKubernetesSweep, runKubernetesUp } from './kubernetes-commands'
import type { KubernetesTargetOptions } from './kubernetes-commands'
import { runClusterInfoCommand, runRouteCommand } from './cluster-commands'
import { runDiscoverCommand, type DiscoverOptions } from './discover-command'
import { runSandboxCheck, runSandboxUp } from './sandbox-commands'
import { runServeCommand } from './serve-command'
import { runValidateCommand } from './validate-command'
import { roomWorkerMain } from '../services/room-worker/room-worker-main'

/** Runs a command body and turns thrown errors into one clear line and exit code 1. */
async function guarded(body: () => Promise<number | void> | number | void): Promise<void> {
  try {
    const code = await body()
    if (typeof code === 'number') process.exitCode = code
  } catch (err) {
    process.stderr.write(`drstudio: ${(err as Error).message}\n`)
    process.exitCode = 1
  }
}

/** A positive number of seconds, or a usage error naming the option. */
function positiveSeconds(option: string): (value: string) => number {
  return (value) => {
    const n = Number(value)
    if (!Number.isFinite(n) || n <= 0) {
      throw new InvalidArgumentError(`${option} takes a positive number of seconds, not "${value}"`)
    }
    return n
  }
}

/** Builds the `drstudio` command tree. */
export function buildProgram(): Command {
  const program = new Command()
    .name('drstudio')
    .description('Design, run and break multi-room Apache RocketMQ deployments')
    .version(findAppPaths().version)

  program
    .command('validate')
    .description('check a topology file; exit 0 when valid, 1 with one line per problem')
    .argument('<file>', 'topology JSON file')
    .option('--json', 'machine-readable output')
    .action((file: string, opts: { json?: boolean }) =>
      guarded(() => runValidateCommand(file, opts))
    )

  program
    .command('serve')
    .description('start the browser shell on 127.0.0.1 with a per-launch token')
    .addOption(
      new Option('--port <port>', 'port to bind (0 = any free port)').default(0).argParser(Number)
    )
    .option('--open', 'open the URL in a browser if one exists', false)
    .option(
      '--metrics <address>',
      "serve live Prometheus metrics of the app's runs at 127.0.0.1:PORT/metrics (also DRSTUDIO_METRICS)"
    )
    .action((opts: { port: number; open: boolean; metrics?: string }) =>
      guarded(() => runServeCommand(opts))
    )

  const sandbox = program
    .command('sandbox')
    .description('run a topology on real RocketMQ processes on loopback')
  sandbox
    .command('up')
    .description('boot a topology and keep it up until Ctrl-C')
    .argument('<topology>', 'topology JSON file')
    .action((file: string) => guarded(() => runSandboxUp(file)))
  sandbox
    .command('check')
    .description(
      'boot, verify every name server lists every broker with its room and every management node lists every name server, tear down'
    )
    .argument('<topology>', 'topology JSON file')
    .option('--json', 'machine-readable output')
    .option(
      '--write-class-archives',
      'shut the JVMs down gracefully so one of each kind writes its class-data archive (setup runs this; later boots map the archives and start faster)'
    )
    .action((file: string, opts: { json?: boolean; writeClassArchives?: boolean }) =>
      guarded(() => runSandboxCheck(file, opts))
    )

  const scenario = program.command('scenario').description('run failover scenarios headless (CI)')
  scenario
    .command('run')
    .description(
      'for each scenario: boot its topology, run its workload and faults, print a scorecard. ' +
        'Exit 0 every gate passed, 1 a gate failed, 2 a run could not be made (bad file, boot failure, missing Java), ' +
        '3 stopped by an abort block; several scenarios exit with the most serious'
    )
    .argument(
      '<files...>',
      'scenario YAML files or folders of them (e.g. resources/scenarios/room1-brokers-down.yaml resources/scenarios)'
    )
    .option(
      '--report <path>',
      'write the report JSON here (a folder, one <name>.json each, for several scenarios)'
    )
    .option('--json', 'print the report JSON instead of the scorecard (an array for several)')
    .option(
      '--junit <file>',
      "write JUnit XML for CI: a testsuite per scenario, a testcase per gate and the run's verdict"
    )
    .option(
      '--allow-actions',
      "on an attached cluster: run the topology's operator commands (actions) the timeline needs"
    )
    .option(
      '--create-topic',
      "on an attached cluster: let DR Studio create the run's topic if it is missing"
    )
    .option(
      '--metrics <address>',
      'serve live Prometheus metrics of the runs at 127.0.0.1:PORT/metrics while the command lasts (bearer token in <data folder>/metrics.token)'
    )
    .addOption(
      new Option(
        '--on <target>',
        "where to run: this machine's sandbox, or a Kubernetes cluster (deployed, run and deleted per scenario; docs/kubernetes.md)"
      )
        .choices(['machine', 'kubernetes'])
        .default('machine')
    )
    .option(
      '--kubeconfig <file>',
      'with --on kubernetes: kubeconfig file (default $KUBECONFIG, then ~/.kube/config)'
    )
    .option(
      '--context <name>',
      'with --on kubernetes: kubeconfig context (default: its current context)'
    )
    .option(
      '--namespace <name>',
      "with --on kubernetes: namespace (default: the topology's settings.kubernetes.namespace, else drs-<name>)"
    )
    .addOption(
      new Option(
        '--ready-timeout <seconds>',
        'with --on kubernetes: how long pods may take to be ready'
      )
        .default(600)
        .argParser(positiveSeconds('--ready-timeout'))
    )
    .addOption(
      new Option(
        '--fault-timeout <seconds>',
        'with --on kubernetes: how long a Chaos Mesh fault may take to take effect or heal'
      )
        .default(60)
        .argParser(positiveSeconds('--fault-timeout'))
    )
    .action(
      (
        files: string[],
        opts: {
          report?: string
          json?: boolean
          junit?: string
          allowActions?: boolean
          createTopic?: boolean
          metrics?: string
          on: 'machine' | 'kubernetes'
          readyTimeout: number
          faultTimeout: number
        } & KubernetesTargetOptions
      ) =>
        guarded(() => {
          const { on, kubeconfig, context, namespace, readyTimeout, faultTimeout, ...rest } = opts
          if (on !== 'kubernetes') {
            const given = [
              kubeconfig && '--kubeconfig',
              context && '--context',
              namespace && '--namespace'
            ]
            const stray = given.filter(Boolean)
            if (stray.length) {
              // A command line that cannot make a run: exit 2, as the scenario command documents.
              process.stderr.write(
                `drstudio: ${stray.join(', ')}: only with --on kubernetes; add --on kubernetes or drop them\n`
              )
              return 2
            }
            return runScenarioCommand(files, rest)
          }
          return runScenarioCommand(files, {
            ...rest,
            kubernetes: {
              ...(kubeconfig ? { kubeconfig } : {}),
              ...(context ? { context } : {}),
              ...(namespace ? { namespace } : {}),
              readyTimeoutS: readyTimeout,
              faultTimeoutS: faultTimeout
            }
          })
        })
    )

  program
    .command('sweep')
    .description(
      'what-if: run a scenario for every combination of client settings or lanes, side by side on one boot, and compare RTO, failed sends, duplicates, cross-room share and send p99'
    )
    .argument('<scenario>', 'scenario YAML file')
    .requiredOption(
      '--vary <key=values>',
      'lane=remoting,java-tuned or client.<setting>=v1,v2 (repeat for more axes)',
      (v: string, prev: string[] = []) => [...prev, v]
    )
    .option('--runs <n>', 'runs of every combination; the table shows medians', Number)
    .option('--json', 'print the result as JSON')
    .option('--report <dir>', "write every run's report JSON into this folder")
    .action(
      (file: string, opts: { vary: string[]; runs?: number; json?: boolean; report?: string }) =>
        guarded(() => runSweepCommand(file, opts))
    )

  program
    .command('report')
    .description(
      'a recorded run as one self-contained HTML file (no scripts, no network), or runs side by side'
    )
    .argument('<runs...>', 'run ids (the Runs panel shows them)')
    .option('--html <file>', 'write the run as one HTML file')
    .option('--compare', 'print the runs side by side, marking the figures that differ')
    .option('--json', 'with --compare: the comparison as JSON')
    .action((runs: string[], opts: { html?: string; compare?: boolean; json?: boolean }) =>
      guarded(() => runReportCommand(runs, opts))
    )

  program
    .command('lint')
    .description(
      'check a topology for multi-room DR mistakes; exit 1 when an error-level rule fires'
    )
    .argument('<topology>', 'topology JSON file')
    .option('--json', 'machine-readable output')
    .action((file: string, opts: { json?: boolean }) => guarded(() => runLintCommand(file, opts)))

  program
    .command('export')
    .description(
      'write production configuration for a topology, one folder per room (or, --target chaos-mesh, a scenario as Chaos Mesh objects)'
    )
    .argument('<file>', 'topology JSON file (a scenario YAML file with --target chaos-mesh)')
    .requiredOption('--out <dir>', 'output folder (created; a previous export there is replaced)')
    .option('--values <file>', 'JSON map of placeholder → value to fill in')
    .option('--results <file>', 'scenario report(s) to quote instead of the recorded runs')
    .option(
      '--target <what>',
      'all (default); grafana: only the dashboard of the live metrics; kubernetes: Kustomize manifests (kubectl apply -k); chaos-mesh: a scenario as a Chaos Mesh Workflow and Schedule'
    )
    .option(
      '--schedule <cron>',
      'with --target chaos-mesh: cron of the recurring game day (default "0 10 * * 3")'
    )
    .option('--json', 'machine-readable output')
    .action(
      (
        file: string,
        opts: {
          out: string
          values?: string
          results?: string
          json?: boolean
          target?: string
          schedule?: string
        }
      ) =>
        guarded(() =>
          opts.target === 'chaos-mesh'
            ? runChaosExportCommand(file, opts.out, { json: opts.json, schedule: opts.schedule })
            : runExportCommand(file, opts.out, {
                valuesPath: opts.values,
                resultsPath: opts.results,
                results: opts.results ? undefined : recordedResults(file),
                json: opts.json,
                ...(opts.target ? { target: opts.target } : {})
              })
        )
    )

  program
    .command('worker')
    .description(
      'a room worker (started by the engine; speaks the client-worker protocol on stdio)'
    )
    .action(() => roomWorkerMain())

  program
    .command('mgmt')
    .description(
      "run a room's management node (address server + name-server health) for production"
    )
    .requiredOption('--config <file>', 'management node config (JSON)')
    .action((opts: { config: string }) =>
      guarded(async () => {
        // Only when a DR Studio sandbox started us (it sets DRSTUDIO_LIFELINE_FD): exit with it.
        watchLifeline()
        const running = await runManagementNode(opts.config)
        await running.stopped
      })
    )

  program
    .command('cluster-info')
    .description('brokers a name server knows now, with their rooms (zoneName)')
    .requiredOption('--namesrv <host:port>', 'name server address')
    .option('--json', 'machine-readable output')
    .action((opts: { namesrv: string; json?: boolean }) =>
      guarded(() => runClusterInfoCommand(opts))
    )

  program
    .command('discover')
    .description(
      'read a running cluster from its name servers into a topology of attached nodes, one room per zone (or by map or name)'
    )
    .option('--namesrv <list>', 'name servers, "host:port;host:port"')
    .option(
      '--address-server <url>',
      'an address server (http://host:8080/rocketmq/nsaddr) listing them'
    )
    .option('--rooms <how>', 'zone (default when every broker has a zone), map or name')
    .option('--rooms-map <file>', 'JSON/YAML: broker name, host, host:port or subnet → room')
    .option('--rooms-by-name <regex>', "a broker's room is the first capture group of its name")
    .option(
      '--namesrv-rooms-by-host <regex>',
      "a name server's room is the first capture group of its host"
    )
    .option('--topic <topic>', 'the topic the workload will use (checked now)')
    .option('--clients', 'add one producer and one consumer per room on --topic')
    .option(
      '--create-topic',
      'let DR Studio create --topic on this cluster (never done unless asked)'
    )
    .option('--name <name>', 'topology name')
    .requiredOption('--out <file>', 'where to write the topology')
    .option('--force', 'overwrite --out if it exists')
    .addOption(new Option('--timeout <ms>', 'per-request timeout').default(3000).argParser(Number))
    .option('--json', 'machine-readable summary on stdout')
    .action((opts: DiscoverOptions) => guarded(() => runDiscoverCommand(opts)))

  program
    .command('route')
    .description('the route a name server returns for a topic now')
    .requiredOption('--namesrv <host:port>', 'name server address')
    .requiredOption('--topic <topic>', 'topic name')
    .option('--json', 'machine-readable output')
    .action((opts: { namesrv: string; topic: string; json?: boolean }) =>
      guarded(() => runRouteCommand(opts))
    )

  const kubernetes = program
    .command('kubernetes')
    .description(
      'put a topology on a Kubernetes cluster (rooms as zones) and take it off again; scenarios run there with `scenario run --on kubernetes`'
    )
  const target = (cmd: Command) =>
    cmd
      .option('--kubeconfig <file>', 'kubeconfig file (default $KUBECONFIG, then ~/.kube/config)')
      .option('--context <name>', 'kubeconfig context (default: its current context)')
      .option(
        '--namespace <name>',
        "namespace (default: the topology's settings.kubernetes.namespace, else drs-<name>)"
      )
      .addOption(
        new Option('--ready-timeout <seconds>', 'how long pods may take to be ready')
          .default(600)
          .argParser(positiveSeconds('--ready-timeout'))
      )
  target(
    kubernetes
      .command('up')
      .description(
        'sweep runs of dead engines, create the topology labelled with a new run, wait until every pod is ready, delete exactly that run at Ctrl-C'
      )
      .argument('<topology>', 'topology JSON file')
  ).action((file: string, opts: KubernetesTargetOptions & { readyTimeout: number }) =>
    guarded(() => runKubernetesUp(file, { ...opts, readyTimeoutS: opts.readyTimeout }))
  )
  target(
    kubernetes
      .command('sweep')
      .description("delete the runs in the topology's namespace whose engine died on this machine")
      .argument('<topology>', 'topology JSON file')
  ).action((file: string, opts: KubernetesTargetOptions) =>
    guarded(() => runKubernetesSweep(file, opts))
  )

  return program
}

await buildProgram().parseAsync(process.argv)
