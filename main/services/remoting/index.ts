export * from './errors'
export * from './codes'
export {
  decodeFrame,
  encodeFrame,
  FrameDecoder,
  FRAME_MAX_LENGTH,
  isOneway,
  isResponse,
  SerializeType
} from './codec'
export type { DecodedCommand, RemotingCommand, SerializeTypeValue } from './codec'
export * from './fastjson'
export * from './message'
export * from './connection'
export * from './remoting-rpc'
export * from './types'
export * from './transaction-requests'
