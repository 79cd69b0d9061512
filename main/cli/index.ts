import { Command, Option } from 'commander'
import { findAppPaths } from '../services/app-paths'
import { runServeCommand } from './serve-command'
import { runValidateCommand } from './validate-command'

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
    .action((file: string, opts: { json?: boolean }) => guarded(() => runValidateCommand(file, opts)))

  program
    .command('serve')
    .description('start the browser shell on 127.0.0.1 with a per-launch token')
    .addOption(new Option('--port <port>', 'port to bind (0 = any free port)').default(0).argParser(Number))
    .option('--open', 'open the URL in a browser if one exists', false)
    .action((opts: { port: number; open: boolean }) => guarded(() => runServeCommand(opts)))

  return program
}

await buildProgram().parseAsync(process.argv)
