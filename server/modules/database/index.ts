// The database module's public face: collections and records (the /database group), their access
// rules, validators and stored forms, and the record operations other faces and steps call.
// Other modules and the app import this file only.
export * as schemas from './schemas.js';
export { DumpCollectionHead, NewFieldBody, NewIndexBody, NewViewBody } from './schemas.js';
export { canReadRecord, checkAccess, type RecordOp } from './access.js';
export { DEFAULT_SETTING, findCollection, listCollections } from './collections.js';
export { isPath, RESERVED_FIELDS, toList, UNINDEXABLE } from './schema-service.js';
export { accessLabel, type RecordOpts, createRecord, deleteRecord, getCollection, getRecord, readRecord, readRecordAhead, type RecordReadAhead, listRecords, replaceRecord, typeOfFor, updateRecord } from './service.js';
export { checkValue, fieldError, validateData } from './validation.js';
export { databaseModule } from './routes.js';
