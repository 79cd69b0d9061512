import { useEffect, useRef } from 'react'
import { useFileStore } from '../stores/file-store'

/**
 * Hidden `<input type="file">` for the browser shell, where the engine cannot show a native
 * dialog. It registers a picker function on the file store.
 */
export function FilePicker() {
  const ref = useRef<HTMLInputElement>(null)
  useEffect(() => {
    const input = ref.current
    if (!input) return
    useFileStore.getState().setPicker(
      () =>
        new Promise<File | null>((resolve) => {
          const done = (file: File | null) => {
            input.removeEventListener('change', onChange)
            input.removeEventListener('cancel', onCancel)
            input.value = ''
            resolve(file)
          }
          const onChange = () => done(input.files?.[0] ?? null)
          const onCancel = () => done(null)
          input.addEventListener('change', onChange)
          input.addEventListener('cancel', onCancel)
          input.click()
        })
    )
    return () => useFileStore.getState().setPicker(null)
  }, [])
  return (
    <input
      ref={ref}
      type="file"
      accept=".json,application/json"
      className="sr-only"
      tabIndex={-1}
      aria-hidden="true"
      data-testid="open-file-input"
    />
  )
}
