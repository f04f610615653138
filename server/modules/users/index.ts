// The users module's public face: the users of a workspace (the /users group), their stored form
// and validators, and the rules of creating and changing one. Other modules and the app import
// this file only.
export { create, type UsersState } from './memory.js';
export * as schemas from './schemas.js';
export { DumpUser, EmailSchema, FirstAdminInput, isEmail, NameSchema, PasswordSchema, SYSTEM_FIELDS, writableBody } from './schemas.js';
export { findUser, findUserByEmail, hashAhead, hashPassword, normalizeEmail, publicUser, usersStore, verifyPassword, type UserDoc } from './repo.js';
export { changeUser, createFirstAdmin, createUser, listUsers, type AccountEnds } from './service.js';
export { usersModule } from './routes.js';
