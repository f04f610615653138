// Documents as lines of JSON with their dates kept, for files the storage layer's users write
// themselves (a workspace's snapshots on disk): a Date is written `{"$$date": <epoch ms>}` and
// read back as a Date, the form the embedded stores' files use too, so that either can read
// the other's lines. Everything else is plain JSON (undefined values are left out).

/** One document (or any JSON value) as a line of JSON. */
export function docToJson(value: unknown): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key: string, v: unknown) {
    const raw = this[key];
    return raw instanceof Date ? { $$date: raw.getTime() } : v;
  });
}

/** A line written by docToJson (or by the embedded stores) as the value it holds. */
export function docFromJson(line: string): unknown {
  return JSON.parse(line, (_key, v: unknown) => {
    if (v && typeof v === 'object' && typeof (v as { $$date?: unknown }).$$date === 'number' && Object.keys(v).length === 1) return new Date((v as { $$date: number }).$$date);
    return v;
  });
}
