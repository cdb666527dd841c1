// The generation of public post lists, kept in the database and so shared by every instance.
// Writers move it on once a write that changes what a list shows has committed, before they
// answer; a cached page is served only while the generation it was read at is still the current
// one. NOTIFY (post-invalidations.ts) tells instances to drop pages, but it arrives when it
// arrives: this check is what makes the next list read after a write's answer show the write on
// every instance, as lists read from the database every time always did. It costs one indexed
// one-row read per list request, instead of the page's query.
import type { PrismaClient } from '../generated/prisma/client.ts'

export interface ListGeneration {
  current(): Promise<bigint>
  advance(): Promise<void>
}

export function makeListGeneration(prisma: PrismaClient): ListGeneration {
  return {
    async current() {
      const [row] = await prisma.$queryRaw<{ value: bigint }[]>`select value from list_generations where id = 1`
      return row?.value ?? 0n
    },
    async advance() {
      await prisma.$executeRaw`
        insert into list_generations (id, value) values (1, 1)
        on conflict (id) do update set value = list_generations.value + 1`
    },
  }
}
