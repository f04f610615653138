// The chats API group: routes are added by its issue.
import type { Module } from '../../core/context.js';

export const chatsModule: Module = { name: 'chats' };
