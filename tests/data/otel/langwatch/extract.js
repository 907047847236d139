const fs = require("fs");
const src = fs.readFileSync(process.argv[2], "utf8");
const out = process.argv[3];
const re = /(?:const\s+)(\w+)\s*:\s*DeepPartial<IExportTraceServiceRequest>\s*=\s*\{/g;
let m;
const names = [];
while ((m = re.exec(src))) {
  const name = m[1];
  let i = m.index + m[0].length - 1; // at "{"
  let depth = 0, j = i;
  for (; j < src.length; j++) {
    const c = src[j];
    if (c === '"' || c === "'" || c === "`") {
      const q = c; j++;
      while (j < src.length && src[j] !== q) { if (src[j] === "\\") j++; j++; }
      continue;
    }
    if (c === "/" && src[j + 1] === "/") { while (src[j] !== "\n") j++; continue; }
    if (c === "{") depth++;
    if (c === "}") { depth--; if (depth === 0) break; }
  }
  let text = src.slice(i, j + 1);
  text = text.replace(/\s+as\s+unknown\s+as\s+\w+/g, "").replace(/\s+as\s+\w+\[\]/g, "").replace(/\s+as\s+const/g, "").replace(/\s+as\s+E[A-Z]\w*\b/g, "").replace(/\s+as\s+number\b/g, "");
  text = text.replace(/Long\.fromString\(("[^"]*")\)/g, "$1");
  text = text.replace(/Long\.fromNumber\(([0-9]+)\)/g, '"$1"');
  text = text.replace(/new Long\(/g, "Long(");
  // int64 values as OTLP JSON writes them: decimal strings
  const Long = (low, high) => String(BigInt(high >>> 0) * 4294967296n + BigInt(low >>> 0));
  Long.fromString = (s) => String(s);
  Long.fromNumber = (n) => String(n);
  const value = new Function("Long", "return (" + text + ");")(Long);
  let file = name.replace(/[A-Z]+/g, (x) => "-" + x.toLowerCase()).replace(/^-/, "");
  if (names.includes(file)) file += "-" + (names.filter((n) => n.startsWith(file)).length + 1);
  fs.writeFileSync(`${out}/${file}.json`, JSON.stringify(value, null, 2) + "\n");
  names.push(file);
}
console.log(names.join("\n"));
