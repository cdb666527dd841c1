// A real browser for tests of what a person sees: Debian's headless Chromium driven by
// puppeteer-core (`puppeteer` proper downloads a browser of its own at install, which cannot work
// without the internet; CI installs Debian's `chromium` instead, see .ci/run).
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import puppeteer, { type Browser } from 'puppeteer-core'
import type { Test } from 'tap'

export const CHROMIUM = '/usr/bin/chromium'

const FLAGS = [
  '--headless',
  // Tests run as root, where Chromium's sandbox cannot start.
  '--no-sandbox',
  '--disable-gpu',
  // Chromium's own background calls (updates, sync, QUIC probes) are refused on a machine without
  // the internet, many at a time; the page under test needs none of them.
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** A fresh browser with an empty profile, closed and removed when `t` ends, whether it passed or not. */
export async function launchBrowser(t: Test): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: the browser tests need Debian's Chromium (apt-get install chromium)`)
  }
  const profile = await mkdtemp(join(tmpdir(), 'chromium-profile-'))
  const removeProfile = () => rm(profile, { recursive: true, force: true })
  let browser: Browser
  try {
    // pipe: the browser talks over its stdio, so it exits with this process even when a teardown
    // never runs (a test file killed at its time limit).
    browser = await puppeteer.launch({ executablePath: CHROMIUM, pipe: true, userDataDir: profile, args: FLAGS })
  } catch (error) {
    await removeProfile()
    throw error
  }
  t.teardown(async () => {
    await browser.close()
    await removeProfile()
  })
  return browser
}
