// res.json without Express's res.send work (content-type parsing, charset, freshness) when
// core/http.ts's plainJsonResponse allows; anything else goes to Express's own res.json.
import type express from 'express';
import { JSON_TEXT, plainJsonResponse, writeJsonText } from '../core/http.js';

/** res.json without Express's res.send work (content-type parsing, charset, freshness) when
 *  core/http.ts's plainJsonResponse allows; anything else goes to Express's own res.json. */
export function fastJson(original: express.Response['json']): express.Response['json'] {
  return function json(this: express.Response, value: unknown) {
    if (!plainJsonResponse(this)) return original.call(this, value);
    const body = (value as { [JSON_TEXT]?: string } | null)?.[JSON_TEXT] ?? JSON.stringify(value);
    if (typeof body !== 'string') return original.call(this, value); // a value JSON cannot encode
    return writeJsonText(this, body);
  };
}
