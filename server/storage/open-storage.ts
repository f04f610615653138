// The one place the storage engine is picked, once, at start: PostgreSQL with a database URL,
// else the embedded stores (in the data folder, or in memory). Every other engine-neutral file
// of storage/ (the registry, the workspace) works through the interfaces of engine.ts and never
// imports an engine. The PostgreSQL engine and the pg client under it are loaded only when a
// database is given: the embedded default never pays for them.
import type { EventBus } from '../core/bus.js';
import type { ServerConfig } from '../core/config.js';
import { Registry } from './registry.js';
import { EmbeddedEngine } from './embedded/engine.js';

/** The registry over the engine `config` names. With a database: the URL checked, the server
 *  reached and the driver's schema created or upgraded (a newer one is refused) first. */
export async function openStorage(config: ServerConfig, bus: EventBus): Promise<Registry> {
  if (config.database) {
    const { PgDatabase } = await import('./pg/database.js');
    const db = await PgDatabase.open(config.database);
    try {
      return await (await import('./pg/start.js')).openOnDatabase(db, config, bus);
    } catch (err) {
      await db.close().catch(() => undefined);
      throw err;
    }
  }
  return openDataFolder(config.dataDir, config.consoleToken, config.compactEvery);
}

/** The registry of a data folder (undefined: in memory), as the offline commands open it.
 *  `compactEvery`: ms between compactions of a store's file (0: never). */
export function openDataFolder(dataDir: string | undefined, consoleToken: string | undefined, compactEvery: number): Promise<Registry> {
  return Registry.open(new EmbeddedEngine(dataDir, compactEvery), consoleToken);
}
