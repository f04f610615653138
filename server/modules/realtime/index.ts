// The realtime module's public face: the WebSocket endpoint and dropping a workspace's sockets.
// Other modules and the app import this file only.
export { create, type RealtimeState } from './memory.js';
export { dropSockets, realtimeModule } from './routes.js';
