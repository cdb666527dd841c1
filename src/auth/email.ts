// Emails are compared case-insensitively: stored, looked up and counted lower-cased.
export const normaliseEmail = (email: string) => email.trim().toLowerCase()
