// The renderer weighs a body by render-cost.ts's estimate: its length, plus two per table cell it
// could make. A table fills its rows out to its header's width, so a short body can make many
// cells: the estimate must count them wherever markdown-it finds a table (in a quote, in a list,
// with any line ending), and never fewer than markdown-it makes — checked against its output.
import t from 'tap'
import { renderMarkdown } from '../../../src/content/html/markdown.ts'
import { LARGE_RENDER_COST } from '../../../src/content/html/post-html.ts'
import { renderCost } from '../../../src/content/html/render-cost.ts'

/** A header of `columns` cells, its delimiter row, and `rows` one-cell rows markdown-it fills out. */
const wideTable = (columns: number, rows: number, prefix = '', end = '\n') =>
  prefix +
  '|' +
  'a|'.repeat(columns) +
  end +
  prefix +
  '|' +
  '-|'.repeat(columns) +
  end +
  (prefix + 'x' + end).repeat(rows)

const cellsMade = (body: string) => {
  const result = renderMarkdown(body)
  if (!('html' in result)) throw new Error('rendered past the bound')
  return (result.html.match(/<t[dh][\s>]/g) ?? []).length
}

t.test('ordinary text costs its length', async (t) => {
  const prose = 'A sentence of a post, with a | pipe and a - dash. '.repeat(180)
  t.equal(renderCost(prose), prose.length)
  t.equal(cellsMade(prose), 0)
})

const tables = {
  'a thousand columns in 4 136 characters': wideTable(1000, 66),
  'in a quote': wideTable(300, 30, '> '),
  'in a list item': '- item\n\n  |' + 'a|'.repeat(300) + '\n  |' + '-|'.repeat(300) + '\n' + '  x\n'.repeat(30),
  'with CR line endings': wideTable(300, 30, '', '\r'),
  'with CRLF line endings': wideTable(300, 30, '', '\r\n'),
  'two tables': wideTable(200, 20) + '\n' + wideTable(200, 20),
  'the issue’s long table': 'a|b\n-|-\n' + 'a|b\n'.repeat(24_997),
}

t.test('a table costs at least two per cell markdown-it makes', async (t) => {
  for (const [name, body] of Object.entries(tables)) {
    const cells = cellsMade(body)
    t.ok(cells > 1000, `${name}: a table (${cells} cells)`)
    t.ok(renderCost(body) >= body.length + 2 * cells, `${name}: cost ${renderCost(body)} for ${cells} cells`)
  }
})

t.test('a short table a thousand columns wide is a large body', async (t) => {
  const body = tables['a thousand columns in 4 136 characters']
  t.ok(body.length < LARGE_RENDER_COST / 2, `${body.length} characters`)
  t.ok(renderCost(body) > LARGE_RENDER_COST, 'renders in the large lane')
})
