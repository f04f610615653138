// The storage module's public face: files (the /storage group, tus uploads) and a server's file
// service. Other modules and the app import this file only.
export { create, type StorageState } from './memory.js';
export { fileObject, storageOf } from './service.js';
export { apiBaseOf } from './tus.js';
export { storageModule } from './routes.js';
