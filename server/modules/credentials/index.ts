// The credentials module's public face: a workspace's secrets (the /credentials group), their
// stored form, and their names and values for the scenario steps that use them. Other modules
// and the app import this file only.
export * as schemas from './schemas.js';
export { DumpCredential } from './schemas.js';
export { publicCredential, secretNames, secretValues } from './service.js';
export { credentialsModule } from './routes.js';
