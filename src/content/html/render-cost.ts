// What rendering a body costs, counted in characters of ordinary text: how the renderer picks a
// body's lane and weighs its turn (post-html.ts). markdown-it's work is linear in the tokens it
// makes, and they are linear in the body's length but for one construct: a GFM table fills every
// row out to its header's width, so 4 000 characters (a header of 1 000 columns and 66 short rows)
// make 66 000 cells and render as slowly as a table of 100 000 characters. The estimate adds the
// cells a table could make at most: in each run of non-blank lines that holds a line shaped like a
// delimiter row, (the most pipes in one of its lines + 1) × its lines. It errs high, and an
// estimate too high costs only the author (the body waits in the large lane, in its author's turns).

/** A cell costs about what two characters do: a row `a|b` is four characters and two cells. */
const CHARACTERS_PER_CELL = 2

/** Every line ending Markdown knows. */
const LINE_END = /\r\n|\r|\n/

/** Only what a delimiter row may hold (pipes, dashes, colons, spaces, a quote's `>`); linear. */
const DELIMITER_ROW_CHARACTERS = /^[\s>|:-]*$/

const isDelimiterRow = (line: string) => line.includes('|') && line.includes('-') && DELIMITER_ROW_CHARACTERS.test(line)

function pipesIn(line: string) {
  let count = 0
  for (let at = line.indexOf('|'); at !== -1; at = line.indexOf('|', at + 1)) count++
  return count
}

/** The body's rendering cost: its length, plus two per table cell it could make. */
export function renderCost(body: string): number {
  let cells = 0
  let lines = 0
  let widest = 0
  let table = false
  const endRun = () => {
    if (table) cells += (widest + 1) * lines
    lines = widest = 0
    table = false
  }
  for (const line of body.split(LINE_END)) {
    if (line.trim() === '') {
      endRun()
      continue
    }
    lines++
    widest = Math.max(widest, pipesIn(line))
    table ||= isDelimiterRow(line)
  }
  endRun()
  return body.length + CHARACTERS_PER_CELL * cells
}
