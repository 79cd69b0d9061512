import type { RegistrationProbe, TopicCreator } from './admin-ports'
import { createRemotingAdmin, remotingRegistrationProbe, remotingTopicCreator } from './admin-ports'
import type { ControllerProbe } from './controller-readiness'
import { remotingControllerProbe } from './controller-readiness'
import type { SandboxOptions } from './sandbox-options'

/** The admin clients a run opens on first use (the injected ones, else remoting), closed at teardown. */
export class SandboxAdminClients {
  private topics: TopicCreator | undefined
  private registration: RegistrationProbe | undefined
  private controller: ControllerProbe | undefined

  constructor(
    private readonly opts: Pick<
      SandboxOptions,
      'topicCreator' | 'registrationProbe' | 'controllerProbe'
    >
  ) {}

  topicCreator(): TopicCreator {
    return (this.topics ??= this.opts.topicCreator ?? remotingTopicCreator(createRemotingAdmin()))
  }

  registrationProbe(): RegistrationProbe {
    return (this.registration ??=
      this.opts.registrationProbe ?? remotingRegistrationProbe(createRemotingAdmin()))
  }

  controllerProbe(): ControllerProbe {
    return (this.controller ??= this.opts.controllerProbe ?? remotingControllerProbe())
  }

  close(): void {
    this.topics?.close?.()
    this.topics = undefined
    this.controller?.close?.()
    this.controller = undefined
    this.registration?.close?.()
    this.registration = undefined
  }
}
