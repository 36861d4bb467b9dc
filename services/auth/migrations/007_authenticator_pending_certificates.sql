-- A certificate authenticator being extended: the new certificate stays pending until its
-- holder proves it received it (extend-verify); the current one keeps working until then.
alter table authenticators add column unverified_cert_pem text;
alter table authenticators add column unverified_fingerprint text;
