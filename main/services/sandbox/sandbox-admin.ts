import type { ProbePort } from '../attach/prober'
import { remotingProbePort } from '../attach/remoting-ports'
import { RemotingRpc } from '../remoting/remoting-rpc'
import type { RegistrationProbe } from './admin-ports'
import { createRemotingAdmin, remotingRegistrationProbe } from './admin-ports'
import type { ControllerProbe } from './controller-readiness'
import { remotingControllerProbe } from './controller-readiness'
import type { SandboxOptions } from './sandbox-options'
import type { WriteProbe } from './write-probe'
import { remotingWriteProbe } from './write-probe'

/**
 * The admin clients a run opens on first use (the injected ones, else remoting), closed at
 * teardown: each pools sockets to the cluster, which would keep the process alive after stop()
 * for as long as the nodes keep them open (RocketMQ closes an idle one after 120 s).
 */
export class SandboxAdminClients {
  private registration: RegistrationProbe | undefined
  private controller: ControllerProbe | undefined
  private probe: ProbePort | undefined
  private writes: WriteProbe | undefined

  constructor(
    private readonly opts: Pick<
      SandboxOptions,
      'registrationProbe' | 'controllerProbe' | 'writeProbe'
    > & { attachedProbe?: ProbePort | undefined }
  ) {}

  registrationProbe(): RegistrationProbe {
    return (this.registration ??=
      this.opts.registrationProbe ?? remotingRegistrationProbe(createRemotingAdmin()))
  }

  controllerProbe(): ControllerProbe {
    return (this.controller ??= this.opts.controllerProbe ?? remotingControllerProbe())
  }

  /** The probe that watches an operator's nodes (attach/prober), opened at each start that has any. */
  attachedProbe(): ProbePort {
    return (this.probe ??=
      this.opts.attachedProbe ?? remotingProbePort(new RemotingRpc({ connectTimeoutMs: 1000 })))
  }

  writeProbe(): WriteProbe {
    return (this.writes ??=
      this.opts.writeProbe ??
      remotingWriteProbe(new RemotingRpc({ connectTimeoutMs: 1000, requestTimeoutMs: 6000 })))
  }

  close(): void {
    this.probe?.close?.()
    this.probe = undefined
    this.writes?.close?.()
    this.writes = undefined
    this.controller?.close?.()
    this.controller = undefined
    this.registration?.close?.()
    this.registration = undefined
  }
}
