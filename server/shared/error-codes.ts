// The catalog of error codes. Browser-safe: the console imports it too.
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  VALIDATION_ERROR: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  /** A fault rule of the workspace answered (its status: any 4xx or 5xx; 500 is the default). */
  INJECTED_FAULT: 500,
  UNAVAILABLE: 503,
  INSUFFICIENT_STORAGE: 507,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Reasons a VALIDATION_ERROR may carry in `details.reason`. */
export const VALIDATION_REASONS = [
  'required', 'type', 'enum', 'format', 'too_short', 'too_long', 'read_only', 'invalid',
] as const;
export type ValidationReason = (typeof VALIDATION_REASONS)[number];

export interface FieldError { field: string; reason: ValidationReason; message?: string }

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details: Record<string, unknown> };
}
