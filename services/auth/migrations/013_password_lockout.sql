-- The failed-attempt lockout, decided on the row itself: the failure that reaches the policy's
-- maxAttempts sets this in the same statement that counts it, and a correct password is only
-- accepted by a statement that finds it unset or past, so no login racing the lockout gets in.
alter table authenticators add column locked_until timestamptz;
