// The faults module's public face: the fault rules a test suite sets on a workspace and where
// they apply (requests, new sockets, webhook deliveries). Other modules and the app import this
// file only.
export { create, type FaultsState } from './memory.js';
export { dropsNewSocket, webhookFault, type FaultMark } from './service.js';
export { injectFaults } from './middleware.js';
export { faultsModule } from './routes.js';
