// Tag `auth`: registration, sign-in, token refresh, sign-out.
import { notImplemented } from '../http/not-implemented.ts'

export const register = notImplemented('register')
export const login = notImplemented('login')
export const refreshSession = notImplemented('refreshSession')
export const logout = notImplemented('logout')
