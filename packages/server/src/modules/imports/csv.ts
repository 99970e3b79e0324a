// Reading an uploaded CSV: checks that refuse a file that is not one (not UTF-8, binary, no header,
// a row longer than the header, a row too wide to parse cheaply), the header's mapping to contact
// fields, guessed or given; an import's options (mode, default country).
import { parse } from "csv-parse";
import { type CountryCode, isSupportedCountry } from "libphonenumber-js";
import { AppError } from "../../platform/errors.ts";

export const CONTACT_FIELDS = ["firstName", "lastName", "phone", "email", "externalId", "labels"] as const;
export type ContactField = (typeof CONTACT_FIELDS)[number];
export type Mapping = Record<string, ContactField>;

export const MAX_IMPORT_BYTES = 50 * 1024 * 1024;
/** At most this many columns in any row (the header included). */
export const MAX_CSV_COLUMNS = 1000;
/** The header line's length at most, in bytes (1,000 columns of up to 64 bytes each). */
export const MAX_CSV_HEADER_BYTES = 64 * 1024;

/**
 * Follows a CSV's bytes as they arrive, before any parsing, and throws CSV_TOO_WIDE at the first row
 * with more than MAX_CSV_COLUMNS columns or a header line longer than MAX_CSV_HEADER_BYTES. The CSV
 * parser spends seconds and gigabytes on a row of a million columns, so such a file must never reach
 * it. Commas and line breaks inside double quotes are text, as for the parser; a line ends at LF, CR
 * or CRLF.
 */
export class CsvWidthGuard {
  private inQuotes = false;
  private columns = 1;
  /** Lines ended so far (0 while in the header). */
  private lines = 0;
  private headerBytes = 0;
  private lastWasCr = false;

  feed(chunk: Uint8Array): void {
    let { inQuotes, columns, lines, lastWasCr } = this;
    let headerEnd = -1;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i];
      if (b === 0x22) {
        inQuotes = !inQuotes;
        lastWasCr = false;
      } else if (inQuotes) {
        lastWasCr = false;
      } else if (b === 0x2c) {
        if (++columns > MAX_CSV_COLUMNS) throw tooManyColumns(lines);
        lastWasCr = false;
      } else if (b === 0x0a || b === 0x0d) {
        // CRLF is one line end.
        if (!(b === 0x0a && lastWasCr)) {
          if (lines === 0 && headerEnd < 0) headerEnd = i;
          lines++;
          columns = 1;
        }
        lastWasCr = b === 0x0d;
      } else {
        lastWasCr = false;
      }
    }
    if (this.lines === 0) {
      this.headerBytes += headerEnd < 0 ? chunk.length : headerEnd;
      if (this.headerBytes > MAX_CSV_HEADER_BYTES) {
        throw new AppError(
          "CSV_TOO_WIDE",
          `the header line is longer than ${MAX_CSV_HEADER_BYTES / 1024} KB: a CSV to import has at most ${MAX_CSV_COLUMNS} columns with short names`,
        );
      }
    }
    Object.assign(this, { inQuotes, columns, lines, lastWasCr });
  }
}

function tooManyColumns(linesBefore: number): AppError {
  return new AppError(
    "CSV_TOO_WIDE",
    linesBefore === 0
      ? `the header row has more than ${MAX_CSV_COLUMNS} columns (the limit)`
      : `line ${linesBefore + 1} has more than ${MAX_CSV_COLUMNS} columns (the limit)`,
  );
}

export const IMPORT_MODES = ["fill", "overwrite"] as const;
export type ImportMode = (typeof IMPORT_MODES)[number];

/** `mode`: fill (the default: only empty fields are filled) or overwrite. */
export function parseMode(raw: string | null | undefined): ImportMode {
  if (raw === null || raw === undefined || raw === "") return "fill";
  if ((IMPORT_MODES as readonly string[]).includes(raw)) return raw as ImportMode;
  throw new AppError("VALIDATION_ERROR", `mode: "${raw}" is not one of ${IMPORT_MODES.join(", ")}`);
}

/** `defaultCountry`: an ISO 3166 two-letter code (CA) for phone numbers written without a country code. */
export function parseDefaultCountry(raw: string | null | undefined): CountryCode | null {
  if (raw === null || raw === undefined || raw.trim() === "") return null;
  const code = raw.trim().toUpperCase();
  if (!isSupportedCountry(code)) {
    throw new AppError(
      "VALIDATION_ERROR",
      `defaultCountry: "${raw}" is not a two-letter country code with a phone plan (e.g. CA, US, GB)`,
    );
  }
  return code;
}

const GUESSES: Record<string, ContactField> = {
  firstname: "firstName",
  first: "firstName",
  givenname: "firstName",
  name: "firstName",
  lastname: "lastName",
  last: "lastName",
  surname: "lastName",
  familyname: "lastName",
  phone: "phone",
  phonenumber: "phone",
  mobile: "phone",
  mobilephone: "phone",
  cell: "phone",
  tel: "phone",
  telephone: "phone",
  whatsapp: "phone",
  email: "email",
  emailaddress: "email",
  mail: "email",
  fromid: "externalId",
  customchannelid: "externalId",
  channelid: "externalId",
  externalid: "externalId",
  labels: "labels",
  label: "labels",
  tags: "labels",
};

/** Each header column's field, guessed from its name ("Phone number" -> phone); unknown ones are skipped. */
export function guessMapping(header: string[]): Mapping {
  const mapping: Mapping = {};
  const taken = new Set<ContactField>();
  for (const column of header) {
    const field = GUESSES[column.toLowerCase().replace(/[^a-z]/g, "")];
    if (field && !taken.has(field)) {
      mapping[column] = field;
      taken.add(field);
    }
  }
  return mapping;
}

/** `first=firstName,Mobile=phone` (the CLI's --map and the API's map=): merged over the guess. */
export function parseMappingText(text: string, header: string[]): Mapping {
  const out: Mapping = {};
  for (const pair of text.split(",")) {
    if (!pair.trim()) continue;
    const i = pair.lastIndexOf("=");
    const column = pair.slice(0, i).trim();
    const field = pair.slice(i + 1).trim();
    if (i < 1 || !column) throw new AppError("VALIDATION_ERROR", `map: "${pair}" is not column=field`);
    if (!header.includes(column)) {
      throw new AppError(
        "VALIDATION_ERROR",
        `map: the file has no column "${column}" (it has ${header.join(", ")})`,
      );
    }
    if (!(CONTACT_FIELDS as readonly string[]).includes(field)) {
      throw new AppError("VALIDATION_ERROR", `map: "${field}" is not one of ${CONTACT_FIELDS.join(", ")}`);
    }
    out[column] = field as ContactField;
  }
  return out;
}

export function checkMapping(mapping: Mapping, header: string[]): void {
  const fields = Object.values(mapping);
  for (const column of Object.keys(mapping)) {
    if (!header.includes(column))
      throw new AppError("VALIDATION_ERROR", `mapping names a column the file lacks: "${column}"`);
  }
  if (!fields.some((f) => f === "phone" || f === "email" || f === "externalId")) {
    throw new AppError(
      "VALIDATION_ERROR",
      `no column is mapped to phone, email or externalId (the file's columns: ${header.join(", ")})`,
    );
  }
  const dup = fields.find((f, i) => fields.indexOf(f) !== i);
  if (dup) throw new AppError("VALIDATION_ERROR", `two columns are mapped to ${dup}`);
}

export interface Scanned {
  header: string[];
  /** Data rows (the header excluded, empty lines skipped). */
  total: number;
  /** Where the first data row starts (after the header and a byte-order mark). */
  dataOffset: number;
  /** The first rows, for a preview. */
  sample: string[][];
}

function looksLikeData(cell: string): boolean {
  return /@/.test(cell) || /^\+?[\d\s().-]{7,}$/.test(cell.trim());
}

/** Reads the whole upload once: refuses what is not a CSV with a header; counts the rows. */
export async function scanCsv(bytes: Buffer): Promise<Scanned> {
  if (bytes.length === 0) throw new AppError("VALIDATION_ERROR", "the file is empty");
  // Again here for the command line, which reads a file rather than a request.
  new CsvWidthGuard().feed(bytes);
  if (bytes.includes(0))
    throw new AppError("VALIDATION_ERROR", "the file looks binary (it holds NUL bytes), not CSV text");
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new AppError("VALIDATION_ERROR", "the file is not UTF-8 text: save it as CSV UTF-8 and try again");
  }
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  let header: string[] | null = null;
  let dataOffset = bom;
  let total = 0;
  const sample: string[][] = [];
  const parser = parse({ skip_empty_lines: true, relax_column_count_less: true, info: true, trim: true });
  const done = new Promise<void>((resolve, reject) => {
    parser.on("readable", () => {
      for (let r = parser.read(); r !== null; r = parser.read()) {
        const { record, info } = r as { record: string[]; info: { bytes: number; lines: number } };
        if (header === null) {
          header = record;
          dataOffset = bom + info.bytes;
          if (header.length === 0 || header.every((c) => c === "")) {
            reject(new AppError("VALIDATION_ERROR", "the first row is empty: the file needs a header row"));
          } else if (header.some(looksLikeData)) {
            reject(
              new AppError(
                "VALIDATION_ERROR",
                `the first row looks like data (${header.find(looksLikeData)}), not a header row naming the columns`,
              ),
            );
          } else if (new Set(header).size !== header.length) {
            reject(new AppError("VALIDATION_ERROR", "two header columns have the same name"));
          }
          continue;
        }
        if (record.length > header.length) {
          reject(
            new AppError(
              "VALIDATION_ERROR",
              `line ${info.lines}: ${record.length} values, but the header names ${header.length} columns`,
            ),
          );
          parser.destroy();
          return;
        }
        total++;
        if (sample.length < 5) sample.push(record);
      }
    });
    parser.on("error", (err) => {
      const longer = /expect (\d+), got (\d+) on line (\d+)/.exec(err.message);
      reject(
        new AppError(
          "VALIDATION_ERROR",
          longer
            ? `line ${longer[3]}: ${longer[2]} values, but the header names ${longer[1]} columns`
            : `not a valid CSV file: ${err.message}`,
        ),
      );
    });
    parser.on("end", () => resolve());
  });
  parser.end(bytes.subarray(bom));
  await done;
  if (header === null) throw new AppError("VALIDATION_ERROR", "the file has no header row");
  return { header, total, dataOffset, sample };
}
