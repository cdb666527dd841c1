// An S3-compatible server for tests: s3rver (npm), in this process, on a free loopback port, over
// a temporary directory, with one bucket made. No real S3 server installs on these machines
// (Debian's radosgw needs a whole Ceph cluster; MinIO and Garage are not packaged); s3rver speaks
// the S3 REST API on the filesystem, which is all the driver needs.
import { rmSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
// @ts-expect-error s3rver ships no types
import S3rver from 's3rver'

export const TEST_BUCKET = 'blog-test'

export interface TestS3 {
  /** The settings that point an app at it (MEDIA_STORAGE=s3 included). */
  env: Record<string, string>
  port: number
  /** Stops answering: new connections are refused, open ones dropped (fault tests). */
  close(): Promise<void>
}

// The SDK reads credentials from the environment; s3rver accepts S3RVER/S3RVER. Never probe EC2.
process.env.AWS_ACCESS_KEY_ID ??= 'S3RVER'
process.env.AWS_SECRET_ACCESS_KEY ??= 'S3RVER'
process.env.AWS_EC2_METADATA_DISABLED = 'true'

export async function startS3(): Promise<TestS3> {
  const directory = await mkdtemp(join(tmpdir(), 'blog-s3-'))
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: TEST_BUCKET }],
  })
  // Whatever the test does, its files go with the process.
  process.once('exit', () => rmSync(directory, { recursive: true, force: true }))
  const address = (await server.run()) as AddressInfo
  const http = server.httpServer as Server
  // The server must not keep a finished test file's process alive.
  http.unref()
  let closed = false
  return {
    port: address.port,
    env: {
      MEDIA_STORAGE: 's3',
      S3_ENDPOINT: `http://127.0.0.1:${address.port}`,
      S3_REGION: 'us-east-1',
      S3_BUCKET: TEST_BUCKET,
      S3_FORCE_PATH_STYLE: 'true',
    },
    async close() {
      if (closed) return
      closed = true
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
      await rm(directory, { recursive: true, force: true })
    },
  }
}
