// The shapes of the objects the API exchanges. Browser-safe: the console imports them too.
export type AccessLevel = 'public' | 'private' | 'only-user';

export interface CollectionSetting {
  read: AccessLevel;
  write: 'public' | 'private';
  update: 'private' | 'only-user';
  remove?: 'private' | 'only-user';
}

export const FIELD_TYPES = ['string', 'number', 'integer', 'boolean', 'date', 'email', 'url', 'enum', 'json', 'array', 'reference', 'file', 'user'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export interface FieldDef {
  _id: string;
  name: string;
  type: FieldType;
  required?: boolean;
  unique?: boolean;
  default?: unknown;
  options?: { values?: unknown[]; collection?: string; min?: number; max?: number; minLength?: number; maxLength?: number; [k: string]: unknown };
  createdAt: string;
  updatedAt: string;
}

export interface ViewDef {
  _id: string;
  name: string;
  filter: Record<string, unknown>;
  sort?: string;
  fields?: string[];
  createdAt: string;
  updatedAt: string;
}

export interface IndexDef { _id: string; fields: string[]; unique: boolean; createdAt: string }

export interface CollectionDef {
  _id: string;
  name: string;
  setting: CollectionSetting;
  fields: FieldDef[];
  views: ViewDef[];
  indexes: IndexDef[];
  createdAt: string;
  updatedAt: string;
}

export interface User {
  _id: string;
  email: string;
  name: string;
  role: string;
  createdAt: string;
  updatedAt: string;
}

export interface ListMeta { total: number; limit: number; offset: number }
export interface ListResponse<T> { data: T[]; meta: ListMeta }

export interface WorkspaceInfo { _id: string; name: string; createdAt: string }
