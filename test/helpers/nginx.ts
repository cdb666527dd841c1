// Debian's nginx (/usr/sbin/nginx) as the TLS-terminating load balancer that docs/nginx/blog.conf
// configures: that very file, its {{NAME}} markers filled in, included in a main configuration
// that keeps everything of this nginx (pid, logs, temporary files) in a scratch folder. It runs in
// the foreground as the test's child, with a self-signed certificate made by openssl.
import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { connect, createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Test } from 'tap'
import { eventually } from './images.ts'

export const NGINX = '/usr/sbin/nginx'
export const BLOG_CONF = fileURLToPath(new URL('../../docs/nginx/blog.conf', import.meta.url))

/** Why a test of nginx cannot run here, or false. */
export const nginxMissing = existsSync(NGINX)
  ? false
  : `needs Debian's nginx at ${NGINX} (apt-get install nginx; .ci/run installs it)`

/** A port nobody listens on now, to give a process that must keep it across restarts. */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** The file with every `{{NAME}}` replaced; throws on a marker without a value, or a value without a marker. */
export function fillIn(template: string, values: Record<string, string>): string {
  for (const name of Object.keys(values))
    if (!template.includes(`{{${name}}}`)) throw new Error(`no {{${name}}} in the template`)
  return template.replace(/\{\{([A-Z0-9_]+)\}\}/g, (marker, name: string) => {
    if (values[name] === undefined) throw new Error(`no value for ${marker}`)
    return values[name]
  })
}

export interface Nginx {
  /** https://127.0.0.1:<port> */
  url: string
  /** The certificate, which is its own CA. */
  ca: string
  accessLog(): string[]
  errorLog(): string[]
}

const isUp = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => (socket.destroy(), resolve(true)))
    socket.once('error', () => resolve(false))
  })

/**
 * Starts nginx with docs/nginx/blog.conf in front of `instances` (host:port each), on a free port of
 * 127.0.0.1; stopped when the test ends.
 */
export async function startNginx(t: Test, instances: [string, string], clientMaxBodySize: number): Promise<Nginx> {
  const dir = mkdtempSync(join(tmpdir(), 'blog-nginx-'))
  const [certificate, key] = [join(dir, 'cert.pem'), join(dir, 'key.pem')]
  execFileSync('openssl', [
    ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2'],
    ...['-keyout', key, '-out', certificate, '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
  ])
  const port = await freePort()
  const [accessLog, errorLog] = [join(dir, 'access.log'), join(dir, 'error.log')]
  const blog = fillIn(readFileSync(BLOG_CONF, 'utf8'), {
    INSTANCE_1: instances[0],
    INSTANCE_2: instances[1],
    LISTEN: `127.0.0.1:${port}`,
    SERVER_NAME: '127.0.0.1',
    CERTIFICATE: certificate,
    CERTIFICATE_KEY: key,
    ACCESS_LOG: accessLog,
    CLIENT_MAX_BODY_SIZE: String(clientMaxBodySize),
  })
  writeFileSync(join(dir, 'blog.conf'), blog)
  // As Debian's /etc/nginx/nginx.conf does, less what this test has no use for; the temporary
  // files go to the scratch folder (Debian's are under /var/lib/nginx, root's). One worker: the
  // machine's cores are shared. Workers run as the user that runs the test (root in CI: its
  // scratch folder is that user's alone).
  const user = process.getuid?.() === 0 ? 'user root root;\n' : ''
  const temporary = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((kind) => `  ${kind}_temp_path ${join(dir, kind)};`)
    .join('\n')
  const main = `${user}worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${errorLog} info;
events { worker_connections 512; }
http {
${temporary}
  include ${join(dir, 'blog.conf')};
}
`
  writeFileSync(join(dir, 'nginx.conf'), main)
  const child = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', errorLog, '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const exit = once(child, 'exit').then(([code]) => code as number | null)
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM')
      await exit
    }
  })
  let exited = false
  void exit.then(() => (exited = true))
  const up = await eventually(async () => exited || (await isUp(port)), 30_000, 50)
  if (!up || exited) throw new Error(`nginx did not start: ${stderr}${readLines(errorLog).join('\n')}`)
  return {
    url: `https://127.0.0.1:${port}`,
    ca: readFileSync(certificate, 'utf8'),
    accessLog: () => readLines(accessLog),
    errorLog: () => readLines(errorLog),
  }
}

function readLines(file: string): string[] {
  if (!existsSync(file)) return []
  return readFileSync(file, 'utf8').split('\n').filter(Boolean)
}
