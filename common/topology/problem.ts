/** One thing wrong with a topology document, pointing at where it is and how to fix it. */
export interface Problem {
  code: string
  /** JSONPath of the offending value, `$` for the document itself. */
  path: string
  message: string
  hint: string
  nodeId?: string
  /** Where in the file (1-based), for problems found while reading the text: syntax, encoding. */
  line?: number
  column?: number
}
