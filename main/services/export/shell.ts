/** Extended regex (grep -E) for an unfilled `<...>` placeholder. */
export const PLACEHOLDER_ERE = "'<[A-Za-z0-9][A-Za-z0-9_.-]*>'"

/** Lines that stop a start script when its config file still has placeholders. */
export function placeholderGuard(file: string): string[] {
  return [
    `if grep -Eq ${PLACEHOLDER_ERE} ${file}; then`,
    `  echo "${file} still has placeholders to fill (see README.md, Placeholders):" >&2`,
    `  grep -En ${PLACEHOLDER_ERE} ${file} >&2`,
    '  exit 1',
    'fi'
  ]
}

/** Quotes a word for sh unless it is plainly safe. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`
}
