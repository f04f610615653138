// The chats module's public face: channels and messages (the /chats group), and who may see a
// channel. Other modules and the app import this file only.
export { create, type ChatsState } from './memory.js';
export * as schemas from './schemas.js';
export { canAccessChannel, getChannel, getMessage, listChannels, listMessages, loadChannel, postMessage } from './service.js';
export { chatsModule } from './routes.js';
