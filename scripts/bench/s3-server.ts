// The bench's S3-compatible store (s3rver, as the tests start it: test/helpers/s3.ts) in a process
// of its own, so that its work is not the bench's: autocannon measures getImage from the bench's
// process. Prints one line of JSON, the settings that point the service at it, once listening.
import { startS3 } from '../../test/helpers/s3.ts'

const s3 = await startS3()
console.log(
  JSON.stringify({
    ...s3.env,
    AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID,
    AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY,
    AWS_EC2_METADATA_DISABLED: 'true',
  }),
)
// Kept alive by its server until the bench kills it.
setInterval(() => {}, 1 << 30)
