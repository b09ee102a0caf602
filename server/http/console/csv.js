// A CSV window read as tsserve-client reads one: a header row, a date column (named
// "date", or else the first column), numeric columns; the model takes the last T rows.

function splitLine(line) {
  const fields = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (c === '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c === '"') {
      quoted = true;
    } else if (c === ",") {
      fields.push(field);
      field = "";
    } else {
      field += c;
    }
  }
  fields.push(field);
  return fields.map((f) => f.trim());
}

// {times: [text], columns: [{name, values: [number]}]} of the last `rows` rows; throws
// Error naming the line and column of anything that is not a number.
export function parseCsv(text, rows) {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== "");
  if (lines.length < 2) throw new Error("the CSV has no rows under its header");
  const header = splitLine(lines[0]);
  let dateColumn = header.findIndex((name) => name.toLowerCase() === "date");
  if (dateColumn < 0) dateColumn = 0;
  const first = Math.max(1, lines.length - rows);
  const times = [];
  const columns = header
    .map((name, index) => ({ name, index, values: [] }))
    .filter((column) => column.index !== dateColumn);
  for (let line = first; line < lines.length; line += 1) {
    const fields = splitLine(lines[line]);
    if (fields.length !== header.length) {
      throw new Error("line " + (line + 1) + ": " + fields.length + " fields where the header has " + header.length);
    }
    times.push(fields[dateColumn]);
    for (const column of columns) {
      const value = Number(fields[column.index]);
      if (fields[column.index] === "" || !Number.isFinite(value)) {
        throw new Error("line " + (line + 1) + ", column " + column.name + ": not a number");
      }
      column.values.push(value);
    }
  }
  return { times, columns: columns.map(({ name, values }) => ({ name, values })), totalRows: lines.length - 1 };
}
