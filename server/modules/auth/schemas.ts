// Request bodies of the /auth endpoints (user field rules come from the users module).
import { z } from 'zod';
import { EmailSchema, NameSchema, PasswordSchema, SYSTEM_FIELDS } from '../users/index.js';

export const RegisterBody = z.object({
  email: EmailSchema,
  password: PasswordSchema,
  name: NameSchema.optional(),
}).catchall(z.unknown());
/** A self-registered user is always a `user`: the body may not name a role. */
export const REGISTER_READ_ONLY = ['role', ...SYSTEM_FIELDS];

// Login does not check formats: whatever is wrong, the answer is the same 401.
export const LoginBody = z.object({ email: z.string().min(1), password: z.string().min(1) });

export const RefreshBody = z.object({ refreshToken: z.string().min(1) });

export const LogoutBody = z.object({ refreshToken: z.string().min(1).optional() });

export const ForgotBody = z.object({ email: EmailSchema });

export const ResetBody = z.object({ token: z.string().min(1), password: PasswordSchema });

export const UpdateMeBody = z.object({ name: NameSchema.optional() }).catchall(z.unknown());
export const ME_READ_ONLY = ['role', 'email', 'password', ...SYSTEM_FIELDS];

export const ChangePasswordBody = z.object({ currentPassword: z.string().min(1), newPassword: PasswordSchema });
