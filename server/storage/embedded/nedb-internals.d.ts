// Types for the parts of @seald-io/nedb (the engine under nedb-promises) that the query planner
// reads directly. Pinned versions: nedb-promises 6.2.4 → @seald-io/nedb 4.1.x.
declare module '@seald-io/nedb/lib/model.js' {
  const model: {
    compareThings(a: unknown, b: unknown, compareStrings?: (a: string, b: string) => number): number;
    getDotValue(obj: unknown, field: string): unknown;
    deepCopy<T>(obj: T, strictKeys?: boolean): T;
    checkObject(obj: unknown): void;
    deserialize(raw: string): unknown;
  };
  export default model;
}
declare module '@seald-io/nedb/lib/storage.js' {
  const storage: {
    ensureDatafileIntegrityAsync(filename: string, mode?: number): Promise<void>;
    ensureParentDirectoryExistsAsync(filename: string, mode?: number): Promise<void>;
  };
  export default storage;
}
