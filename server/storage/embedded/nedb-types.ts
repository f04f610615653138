// The shape of the nedb engine objects the store and the query planner touch.
export interface AvlNode {
  key?: unknown;
  data: Record<string, unknown>[];
  left?: AvlNode | null;
  right?: AvlNode | null;
}

export interface NedbIndex {
  fieldName: string;
  _fields: string[];
  unique: boolean;
  sparse: boolean;
  tree: { tree: AvlNode; getNumberOfKeys(): number };
  getMatching(value: unknown): Record<string, unknown>[];
  getBetweenBounds(query: Record<string, unknown>): Record<string, unknown>[];
  reset(newData?: unknown[]): void;
}

export interface NedbEngine {
  indexes: Record<string, NedbIndex>;
  getAllData(): Record<string, unknown>[];
  executor: { pushAsync<T>(task: () => Promise<T> | T, forceQueuing?: boolean): Promise<T>; processBuffer(): void };
  persistence: { persistCachedDatabaseAsync(): Promise<void>; persistNewStateAsync(docs: unknown[]): Promise<void> };
  setAutocompactionInterval(ms: number): void;
  stopAutocompaction(): void;
  _resetIndexes(newData?: unknown[]): void;
  _addToIndexes(doc: unknown): void;
  _removeFromIndexes(doc: unknown): void;
  _updateIndexes(pairs: Array<{ oldDoc: unknown; newDoc: unknown }>): void;
  insertAsync(doc: unknown): Promise<unknown>;
  updateAsync(query: unknown, update: unknown, options?: unknown): Promise<{ numAffected: number; affectedDocuments: unknown }>;
  removeAsync(query: unknown, options?: unknown): Promise<number>;
  ensureIndexAsync(options: { fieldName: string | string[]; unique?: boolean; sparse?: boolean }): Promise<void>;
  removeIndexAsync(fieldName: string | string[]): Promise<void>;
  loadDatabaseAsync(): Promise<void>;
  compactDatafileAsync(): Promise<void>;
}
