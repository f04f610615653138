// The clock module's public face: a workspace's clock set by a test suite, who hears it move,
// and waiting on it. Other modules and the app import this file only.
export { create, type ClockState } from './memory.js';
export { onClockMove } from './service.js';
export { waitUntil } from './wait.js';
export { clockModule } from './routes.js';
