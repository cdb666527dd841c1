// Runs bcrypt on a worker thread (see passwords.ts). Plain JavaScript so worker threads load it
// without a TypeScript loader.
import { setPriority } from 'node:os'
import bcrypt from 'bcryptjs'

// On Linux a nice value belongs to a thread, and setPriority without a pid sets the calling one's:
// hashing yields the CPU to the event loop, so reads stay fast while logins queue. Best effort:
// other systems may refuse or apply it to the whole process, which is harmless here.
try {
  setPriority(10)
} catch {
  // not permitted here: hashing runs at normal priority
}

export const hash = ({ password, cost }) => bcrypt.hashSync(password, cost)

export const compare = ({ password, hash: digest }) => bcrypt.compareSync(password, digest)
