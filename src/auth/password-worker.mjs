// Runs bcrypt on a worker thread (see passwords.ts). Plain JavaScript so worker threads load it
// without a TypeScript loader.
import bcrypt from 'bcryptjs'

export const hash = ({ password, cost }) => bcrypt.hashSync(password, cost)

export const compare = ({ password, hash: digest }) => bcrypt.compareSync(password, digest)
