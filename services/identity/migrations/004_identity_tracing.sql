-- Tracing of an identity's traffic, switched on for a while by PUT /identities/{id}/trace.
ALTER TABLE identities ADD COLUMN trace_id text;
ALTER TABLE identities ADD COLUMN trace_until timestamptz;
ALTER TABLE identities ADD COLUMN trace_channels text[] NOT NULL DEFAULT '{}';
