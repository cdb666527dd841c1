// "Try it out" on /docs, in a real browser, as a client team uses it: the page sends each call to
// the server its spec names, under the page's own Content-Security-Policy. An absolute server URL
// is another origin whenever the page is opened at another host or port, and the CSP then blocks
// the call ("Failed to fetch"); the spec's relative server follows the page wherever it is opened.
import type { AddressInfo } from 'node:net'
import type { Page } from 'puppeteer-core'
import t from 'tap'
import { registerUser } from '../helpers/accounts.ts'
import { launchBrowser } from '../helpers/browser.ts'
import { build } from '../helpers/build.ts'

function cspDirectives(header: string) {
  return new Map(
    header
      .split(';')
      .map((directive) => directive.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name, ...sources]) => [name!, sources]),
  )
}

/** Signs the page in through Swagger UI's Authorize dialog, as a person does. */
async function authorize(page: Page, accessToken: string) {
  await page.locator('.auth-wrapper .authorize').click()
  // Typed key by key: Swagger UI (React) misses a value set at once, as Locator.fill sets a long one.
  const input = await page.locator('.modal-ux #auth-bearer-value').waitHandle()
  await input.type(accessToken)
  await page.locator('.modal-ux button[type=submit].authorize').click()
  // The dialog shows the scheme as authorized, with a way to log out.
  await page.locator('.modal-ux button[aria-label="Remove authorization"]').wait()
  await page.locator('.modal-ux .btn-done').click()
  await page.waitForSelector('.modal-ux', { hidden: true })
}

/** Try it out → Execute on one operation; returns the response as the page renders it. */
async function tryItOut(page: Page, tag: string, operationId: string) {
  const operation = `#operations-${tag}-${operationId}`
  await page.locator(`${operation} .opblock-summary`).click()
  await page.locator(`${operation} .try-out__btn`).click()
  await page.locator(`${operation} .execute`).click()
  // The live response row appears once the call has ended, answered or failed.
  const row = `${operation} .live-responses-table .response`
  await page.waitForSelector(`${row} .response-col_status`)
  return page.$eval(row, (element) => ({
    status: element.querySelector('.response-col_status')?.textContent?.trim(),
    details: element.querySelector('.response-col_description')?.textContent ?? '',
  }))
}

t.test('Try it out on /docs calls the origin the page was loaded from, signed in through Authorize', async (t) => {
  const browser = await launchBrowser(t)
  const app = await build(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo
  const account = await registerUser(app, 'docs')

  for (const host of ['127.0.0.1', 'localhost']) {
    await t.test(`at http://${host}:<random port>/docs`, async (t) => {
      const page = await browser.newPage()
      const consoleErrors: string[] = []
      page.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push(message.text())
      })
      const response = await page.goto(`http://${host}:${port}/docs`)
      t.equal(response?.status(), 200, '/docs loads')

      // Strict still: the page may call its own origin only, and never evaluate strings as code.
      const csp = cspDirectives(response?.headers()['content-security-policy'] ?? '')
      t.same(csp.get('connect-src') ?? csp.get('default-src'), ["'self'"], 'calls go to the page origin only')
      t.notOk(
        [...csp.values()].flat().some((source) => source.includes('*')),
        'no wildcard source',
      )
      t.notOk([...csp.values()].flat().includes("'unsafe-eval'"), "no 'unsafe-eval'")

      await authorize(page, account.accessToken)
      const ping = await tryItOut(page, 'system', 'ping')
      t.equal(ping.status, '200', 'GET /ping from Try it out', { details: ping.details, consoleErrors })
      const me = await tryItOut(page, 'users', 'getCurrentUser')
      t.equal(me.status, '200', 'GET /me from Try it out', { details: me.details, consoleErrors })
      t.match(me.details, account.email, 'GET /me answered for the authorized user')
      await page.close()
    })
  }
})
