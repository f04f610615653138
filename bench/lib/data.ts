// Deterministic benchmark data: the same N "people" records for every target (Homebase's `_id`,
// json-server's `id`), and the random ids / bodies the load generator sends.
import { prng } from '../../server/storage/query-cases.js';

export interface Person {
  _id: string;
  name: string;
  email: string;
  role: string;
  age: number;
  city: string;
  active: boolean;
  score: number;
  createdAt: string;
  updatedAt: string;
}

export const ROLES = ['admin', 'editor', 'user', 'guest'] as const;
const CITIES = ['Lyon', 'Oslo', 'Lima', 'Pune', 'Kyiv', 'Cork', 'Baku', 'Nice', 'Riga', 'Bern'];
const FIRST = ['Ada', 'Alan', 'Grace', 'Linus', 'Margaret', 'Ken', 'Barbara', 'Dennis', 'Radia', 'Edsger'];
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A small seeded PRNG (mulberry32): the same seed gives the same data set on every run; the one
 *  the driver tests draw their random documents with. */
export { prng };

/** A 16-character id of [A-Za-z0-9] starting with a letter (the records API's id pattern). */
export function randomId(rand: () => number): string {
  let id = ALPHABET[Math.floor(rand() * 52)];
  for (let i = 1; i < 16; i++) id += ALPHABET[Math.floor(rand() * 62)];
  return id;
}

/** The fields a client sends when it creates a person (no id, no timestamps). */
export function personBody(rand: () => number, i: number): Omit<Person, '_id' | 'createdAt' | 'updatedAt'> {
  const first = FIRST[i % FIRST.length];
  return {
    name: `${first} ${i}`,
    email: `${first.toLowerCase()}.${i}@example.com`,
    role: ROLES[Math.floor(rand() * ROLES.length)],
    age: 18 + Math.floor(rand() * 63),
    city: CITIES[Math.floor(rand() * CITIES.length)],
    active: rand() < 0.7,
    score: Math.round(rand() * 10_000) / 100,
  };
}

export function generatePeople(n: number, seed = 42): Person[] {
  const out: Person[] = new Array(n);
  let i = 0;
  for (const p of streamPeople(seed)) {
    if (i === n) break;
    out[i++] = p;
  }
  return out;
}

/** The same people one at a time, endlessly (generatePeople(n) is its first n): data sets too
 *  big to hold at once are written in batches. */
export function* streamPeople(seed = 42): Generator<Person> {
  const rand = prng(seed);
  const start = Date.UTC(2024, 0, 1);
  for (let i = 0; ; i++) {
    const at = new Date(start + i * 1000).toISOString();
    yield { _id: randomId(rand), ...personBody(rand, i), createdAt: at, updatedAt: at };
  }
}

/** json-server's shape of the same data: `id` instead of `_id`. */
export function jsonServerDb(people: Person[]): string {
  const rows = people.map(({ _id, ...rest }) => JSON.stringify({ id: _id, ...rest }));
  return `{"people":[\n${rows.join(',\n')}\n]}\n`;
}

/** Up to `max` ids picked evenly from the data set, for random GET / update targets. */
export function sampleIds(people: Person[], max = 10_000): string[] {
  const step = Math.max(1, Math.floor(people.length / max));
  const out: string[] = [];
  for (let i = 0; i < people.length && out.length < max; i += step) out.push(people[i]._id);
  return out;
}
