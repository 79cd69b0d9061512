import { expect, test } from './fixtures'
import { freshWindow } from './support/shell'

/**
 * The run target selector (issue 26): the Scenarios panel lists the contexts of the app's
 * kubeconfig (e2e/fixtures/kubeconfig.yaml: one context whose API server is a loopback port nothing
 * listens on) next to This machine. A run there goes to the engine's Kubernetes path and fails at
 * once with the engine's own message; the sandbox is never started, and a sweep is offered on this
 * machine only. The run on a cluster itself is test/integration/kubernetes-run.test.ts's (against
 * the API-server stand-in, bridged to real RocketMQ JVMs); there is no cluster here.
 */
test.beforeAll(async ({ shell }) => {
  await freshWindow(shell.page)
})

test('Scenarios ▸ Run on lists the kubeconfig contexts; a run there fails with the reason and never boots the sandbox', async ({
  page
}) => {
  const panel = page.getByRole('region', { name: 'Scenarios' })
  await panel.getByRole('button', { name: 'Scenarios' }).click()
  const target = panel.getByRole('combobox', { name: 'Run on' })
  await expect(target).toHaveValue('')
  await expect(target.getByRole('option')).toHaveText([
    'This machine',
    'Kubernetes: e2e-unreachable (current) · https://127.0.0.1:9'
  ])
  await target.selectOption('e2e-unreachable')
  await expect(panel.getByRole('note')).toContainText(
    "Deploys the scenario's topology in its namespace, runs it, then deletes the run"
  )
  // A sweep runs its settings side by side on this machine only.
  await expect(panel.getByRole('button', { name: 'Sweep healthy' })).toBeDisabled()
  await panel.getByRole('button', { name: 'Run healthy' }).click()
  await expect(page.getByRole('status', { name: 'Notifications' })).toContainText(
    'scenario "healthy" failed: scenario healthy could not run on Kubernetes: https://127.0.0.1:9: cannot reach the Kubernetes API server'
  )
  await expect(panel.getByRole('button', { name: 'Run healthy' })).toBeEnabled()
  // The sandbox on this machine was never started.
  const toolbar = page.getByRole('toolbar', { name: 'Main toolbar' })
  await expect(toolbar.getByRole('button', { name: 'Start', exact: true })).toBeEnabled()
  await expect(toolbar.getByRole('button', { name: 'Stop', exact: true })).toBeDisabled()
  // Back on this machine: the sweep is offered again.
  await target.selectOption('')
  await expect(panel.getByRole('button', { name: 'Sweep healthy' })).toBeEnabled()
  await panel.getByRole('button', { name: 'Scenarios' }).click()
})
