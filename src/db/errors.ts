// Prisma's error codes that stores turn into answers (409, 404) instead of letting them become 500s.
import { Prisma } from '../generated/prisma/client.ts'

const hasCode = (error: unknown, code: string) => error instanceof Prisma.PrismaClientKnownRequestError && error.code === code

/** A unique constraint refused the write. */
export const isUniqueViolation = (error: unknown) => hasCode(error, 'P2002')

/** The record to update or delete no longer exists (deleted meanwhile). */
export const isMissingRecord = (error: unknown) => hasCode(error, 'P2025')
