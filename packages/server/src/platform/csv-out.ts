// The one writer of every CSV Parley answers (an import's rejected rows, any later export): RFC 4180
// quoting, and cells a spreadsheet would run as a formula neutralised. A cell that starts with =, +,
// -, @, a tab or a carriage return gets a leading apostrophe (OWASP's advice for CSV injection):
// spreadsheets show the text as typed and run nothing. The value stays readable; the apostrophe is
// the price of opening a report safely (a phone +14155550100 reads '+14155550100).
//
// No CSV-writing library is in the repository (csv-parse only reads): quoting is the few lines below.

const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell: neutralised, then quoted when it holds a quote, a comma or a line break. */
export function csvCell(value: string | number | null | undefined): string {
  const text = value === null || value === undefined ? "" : String(value);
  const safe = FORMULA_START.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** Rows as CSV text, each line ended by \n. */
export function csvText(rows: Iterable<ReadonlyArray<string | number | null | undefined>>): string {
  let out = "";
  for (const row of rows) out += `${row.map(csvCell).join(",")}\n`;
  return out;
}
