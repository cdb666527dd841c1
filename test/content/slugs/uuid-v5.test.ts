// Name-based UUIDs: the same as other implementations make (Python's uuid.uuid5 with NAMESPACE_URL
// gave these), version 5 and RFC 9562's variant.
import t from 'tap'
import { uuidV5OfUrl } from '../../../src/content/slugs/uuid-v5.ts'

t.test('version 5 UUIDs in the URL namespace', async (t) => {
  t.equal(uuidV5OfUrl('http://www.example.com/'), 'fcde3c85-2270-590f-9e7c-ee003d65e0e2')
  t.equal(uuidV5OfUrl('https://blog.example.org/feed.atom'), '3507cfad-3607-5df3-95ec-22d1ce306f76')
  t.match(uuidV5OfUrl('https://x/é😀'), /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  t.not(uuidV5OfUrl('https://x/a'), uuidV5OfUrl('https://x/b'))
})
