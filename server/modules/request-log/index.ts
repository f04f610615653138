// The request log module's public face: the log of a workspace's requests (the middleware that
// writes it, clearing it, waiting for its requests to finish). Other modules and the app import
// this file only.
export { create, type RequestLogState } from './memory.js';
export { clearRequestLog, redactUrl, requestLogMiddleware, waitForIdle } from './request-log.js';
export { requestLogModule } from './routes.js';
