-- The controller's own PKI: root CA, intermediate signing CA and HTTPS server certificate.
-- One row per kind; the server row is replaced in place when it is re-issued.
create table controller_certificates (
  kind text primary key check (kind in ('root-ca', 'intermediate-ca', 'server')),
  serial_number text not null,
  subject text not null,
  cert_pem text not null,
  -- PKCS#8 PEM under AES-256-GCM ("v1:" + base64(iv | tag | ciphertext)); never plaintext.
  key_encrypted text not null,
  sans text[] not null default '{}',
  not_before timestamptz not null,
  not_after timestamptz not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- Per-installation scrypt salt for a passphrase EDGE_KEY_ENCRYPTION_KEY; a single row.
create table key_encryption (
  id boolean primary key default true check (id),
  scrypt_salt bytea not null,
  created_at timestamptz not null default now()
);
