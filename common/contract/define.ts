import type { z } from 'zod'

/** A renderer → engine request: a validated input and the shape of its answer. */
export interface RequestSpec<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  input: I
  output: O
}

/** An engine → renderer event with its payload schema. */
export interface EventSpec<P extends z.ZodType = z.ZodType> {
  payload: P
}

/** Declares a request channel; `output` documents and types the answer. */
export function request<I extends z.ZodType, O extends z.ZodType>(
  input: I,
  output: O
): RequestSpec<I, O> {
  return { input, output }
}

/** Declares an event channel. */
export function event<P extends z.ZodType>(payload: P): EventSpec<P> {
  return { payload }
}
