import { existsSync, mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { RocketmqLib } from './rocketmq-lib'

/**
 * JDK class-data sharing (AppCDS) for the sandbox's JVMs. Most of a RocketMQ JVM's boot on a busy
 * 2-core machine is loading and verifying the same few thousand classes from the jars; a dynamic
 * archive of them, written once by a JVM of the same kind at its exit, is mapped instead. The JVM
 * checks an archive against its own build and classpath and boots without it when they differ, so
 * a stale archive costs the speed-up, never the boot.
 */

/** JVMs that load different classes, so each has its own archive. */
export type ArchiveKind = 'nameserver' | 'nameserver-controller' | 'controller' | 'broker' | 'proxy'

export interface ClassArchiveOptions {
  /** Folder of `<kind>.jsa` archives; null turns archives off. */
  dir: string | null
  /**
   * Write archives instead of reading them: the first JVM of each kind in a boot dumps the classes
   * it loaded when it exits (`drstudio sandbox check --write-class-archives`, run by setup).
   */
  write?: boolean
  exists?: (file: string) => boolean
  /** Creates the folder before a JVM is told to write into it (it would not, and say nothing). */
  makeDir?: (dir: string) => void
}

const mkdirRecursive = (dir: string): void => void mkdirSync(dir, { recursive: true })

/** Where archives live by default: beside the repo's own jars, which they were made from. */
export function defaultArchiveDir(lib: RocketmqLib): string | null {
  return lib.source === 'repo' ? join(dirname(lib.dir), 'class-archives') : null
}

/** The archive flags of one boot: which JVM reads which archive, and which one writes it. */
export class ClassArchives {
  /** Kind → the node (its folder) that writes that kind's archive in this boot. */
  private readonly writers = new Map<ArchiveKind, string>()
  private readonly exists: (file: string) => boolean

  constructor(private readonly opts: ClassArchiveOptions) {
    this.exists = opts.exists ?? existsSync
  }

  /**
   * JVM flags for the JVM of `kind` that runs in `nodeDir` (its command may be built more than
   * once); [] when archives are off or none exists yet.
   */
  flags(kind: ArchiveKind, nodeDir: string): string[] {
    if (!this.opts.dir) return []
    const file = join(this.opts.dir, `${kind}.jsa`)
    if (this.opts.write) {
      // One writer per kind: two JVMs dumping to one file at once would leave neither usable.
      const writer = this.writers.get(kind) ?? nodeDir
      if (this.writers.size === 0) (this.opts.makeDir ?? mkdirRecursive)(this.opts.dir)
      this.writers.set(kind, writer)
      return writer === nodeDir ? [`-XX:ArchiveClassesAtExit=${file}`] : []
    }
    return this.exists(file) ? [`-XX:SharedArchiveFile=${file}`] : []
  }
}
